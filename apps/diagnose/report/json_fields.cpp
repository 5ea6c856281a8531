// Checked JSON field access with the field's path in every message.
#include "report/json_fields.hpp"

#include <fmt/format.h>

#include <limits>

#include "report/diagnosis_json.hpp"
#include "reports/printable.hpp"

namespace collbench::diagnose {

using nlohmann::json;

namespace {

// Ranks and GPU indices: an integer beyond an int's range is no rank.
bool fits_int(const json& value) {
  if (value.is_number_unsigned()) {
    return value.get<unsigned long long>() <=
           static_cast<unsigned>(std::numeric_limits<int>::max());
  }
  return value.is_number_integer() && value.get<long long>() >= std::numeric_limits<int>::min() &&
         value.get<long long>() <= std::numeric_limits<int>::max();
}

}  // namespace

void wrong_type(const std::string& path, const json& value, const std::string& what) {
  throw DiagnosisFormatError(
      fmt::format("'{}' is {}, not {}", path, report::printable(value.dump()), what));
}

JsonFields::JsonFields(const json& object, std::string path)
    : object_(&object), path_(std::move(path)) {
  if (!object.is_object()) wrong_type(path_.empty() ? "the diagnosis" : path_, object, "an object");
}

std::string JsonFields::path_of(const char* name) const {
  return path_.empty() ? name : path_ + "." + name;
}

const json& JsonFields::value(const char* name) const {
  const auto found = object_->find(name);
  if (found == object_->end()) {
    throw DiagnosisFormatError(fmt::format("no '{}' field", path_of(name)));
  }
  return *found;
}

double JsonFields::number(const char* name) const {
  const json& field = value(name);
  if (!field.is_number()) wrong_type(path_of(name), field, "a number");
  return field.get<double>();
}

int JsonFields::integer(const char* name) const {
  const json& field = value(name);
  if (!fits_int(field)) wrong_type(path_of(name), field, "an integer");
  return field.get<int>();
}

std::string JsonFields::text(const char* name) const {
  const json& field = value(name);
  if (!field.is_string()) wrong_type(path_of(name), field, "a string");
  return field.get<std::string>();
}

bool JsonFields::boolean(const char* name) const {
  const json& field = value(name);
  if (!field.is_boolean()) wrong_type(path_of(name), field, "true or false");
  return field.get<bool>();
}

bool JsonFields::has(const char* name) const {
  return object_->contains(name);
}

std::optional<double> JsonFields::number_or_null(const char* name) const {
  if (value(name).is_null()) return std::nullopt;
  return number(name);
}

std::optional<int> JsonFields::integer_or_null(const char* name) const {
  if (value(name).is_null()) return std::nullopt;
  return integer(name);
}

std::optional<unsigned long long> JsonFields::count_or_null(const char* name) const {
  const json& field = value(name);
  if (field.is_null()) return std::nullopt;
  if (!field.is_number_unsigned()) wrong_type(path_of(name), field, "a count");
  return field.get<unsigned long long>();
}

const json& JsonFields::array(const char* name) const {
  const json& field = value(name);
  if (!field.is_array()) wrong_type(path_of(name), field, "an array");
  return field;
}

std::vector<int> JsonFields::integers(const char* name) const {
  std::vector<int> values;
  const json& elements = array(name);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!fits_int(elements[i])) {
      wrong_type(fmt::format("{}[{}]", path_of(name), i), elements[i], "an integer");
    }
    values.push_back(elements[i].get<int>());
  }
  return values;
}

std::vector<double> JsonFields::numbers(const char* name) const {
  std::vector<double> values;
  const json& elements = array(name);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!elements[i].is_number()) {
      wrong_type(fmt::format("{}[{}]", path_of(name), i), elements[i], "a number");
    }
    values.push_back(elements[i].get<double>());
  }
  return values;
}

std::vector<std::string> JsonFields::texts(const char* name) const {
  std::vector<std::string> values;
  const json& elements = array(name);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (!elements[i].is_string()) {
      wrong_type(fmt::format("{}[{}]", path_of(name), i), elements[i], "a string");
    }
    values.push_back(elements[i].get<std::string>());
  }
  return values;
}

std::vector<JsonFields> JsonFields::objects(const char* name) const {
  std::vector<JsonFields> values;
  const json& elements = array(name);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    values.emplace_back(elements[i], fmt::format("{}[{}]", path_of(name), i));
  }
  return values;
}

JsonFields JsonFields::object(const char* name) const {
  return JsonFields(value(name), path_of(name));
}

}  // namespace collbench::diagnose
