// Checked conversions of JSON values to the workload's field types.
#include "workload/json_values.hpp"

#include <fmt/format.h>

#include "reports/printable.hpp"

namespace collbench::replay {

using nlohmann::json;

void wrong_value(const json& value, std::string_view field, std::string_view what,
                 const LineContext& context) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  context.fail(fmt::format("'{}' is {}, not {}", field, report::printable(text), what));
}

std::int64_t integer_field(const json& value, std::string_view field, std::int64_t min,
                           std::int64_t max, const LineContext& context) {
  const auto what = [&] { return fmt::format("an integer from {} to {}", min, max); };
  if (value.is_number_unsigned()) {
    if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      wrong_value(value, field, what(), context);
    }
    return static_cast<std::int64_t>(value.get<std::uint64_t>());
  }
  if (!value.is_number_integer()) wrong_value(value, field, what(), context);
  const std::int64_t number = value.get<std::int64_t>();
  if (number < min || number > max) wrong_value(value, field, what(), context);
  return number;
}

std::uint64_t count_field(const json& value, std::string_view field, const LineContext& context) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(value.get<std::int64_t>());
  }
  wrong_value(value, field, "a count (an integer >= 0)", context);
}

double number_field(const json& value, std::string_view field, const LineContext& context) {
  if (!value.is_number()) wrong_value(value, field, "a number", context);
  return value.get<double>();
}

const std::string& text_field(const json& value, std::string_view field,
                              const LineContext& context) {
  if (!value.is_string()) wrong_value(value, field, "a string", context);
  return value.get_ref<const std::string&>();
}

std::vector<std::string> texts_field(const json& value, std::string_view field,
                                     const LineContext& context) {
  if (!value.is_array()) wrong_value(value, field, "an array of strings", context);
  std::vector<std::string> texts;
  for (const json& item : value) texts.push_back(text_field(item, field, context));
  return texts;
}

std::vector<std::int64_t> integers_field(const json& value, std::string_view field,
                                         std::int64_t min, std::int64_t max,
                                         const LineContext& context) {
  if (!value.is_array()) wrong_value(value, field, "an array of integers", context);
  std::vector<std::int64_t> numbers;
  numbers.reserve(value.size());
  for (const json& item : value) numbers.push_back(integer_field(item, field, min, max, context));
  return numbers;
}

std::vector<std::uint64_t> counts_field(const json& value, std::string_view field,
                                        const LineContext& context) {
  if (!value.is_array()) wrong_value(value, field, "an array of counts", context);
  std::vector<std::uint64_t> counts;
  counts.reserve(value.size());
  for (const json& item : value) counts.push_back(count_field(item, field, context));
  return counts;
}

}  // namespace collbench::replay
