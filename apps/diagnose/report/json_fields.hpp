// Checked reading of one JSON object's fields, for the diagnosis reader: every problem throws
// DiagnosisFormatError naming the field by its path ("suspects[0].ratio").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace collbench::diagnose {

class JsonFields {
 public:
  // `path` names the object in messages ("" for the document itself).
  JsonFields(const nlohmann::json& object, std::string path);

  double number(const char* name) const;
  int integer(const char* name) const;
  std::string text(const char* name) const;
  bool boolean(const char* name) const;
  bool has(const char* name) const;
  // Null reads as nothing; the field must still be there.
  std::optional<double> number_or_null(const char* name) const;
  std::optional<int> integer_or_null(const char* name) const;
  std::optional<unsigned long long> count_or_null(const char* name) const;
  std::vector<int> integers(const char* name) const;
  std::vector<double> numbers(const char* name) const;
  std::vector<std::string> texts(const char* name) const;
  // An array of objects, each with its path ("gpus[3]").
  std::vector<JsonFields> objects(const char* name) const;
  JsonFields object(const char* name) const;
  // The field's value, unchecked; throws when it is absent.
  const nlohmann::json& value(const char* name) const;
  std::string path_of(const char* name) const;

 private:
  const nlohmann::json& array(const char* name) const;

  const nlohmann::json* object_;
  std::string path_;
};

// Throws DiagnosisFormatError: "'PATH' is VALUE, not WHAT".
[[noreturn]] void wrong_type(const std::string& path, const nlohmann::json& value,
                             const std::string& what);

}  // namespace collbench::diagnose
