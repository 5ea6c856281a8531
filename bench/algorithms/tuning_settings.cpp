// The declarations of the number settings that tuning structs bind.
#include "algorithms/tuning_settings.hpp"

#include <string>
#include <utility>

namespace collbench {

SettingSpec integer_spec(const std::string& name, int default_value, int min_value, int max_value,
                         std::string help) {
  return number_setting(name, SettingKind::integer, std::to_string(default_value), min_value,
                        max_value, std::move(help));
}

SettingSpec bytes_spec(const std::string& name, std::size_t default_value, std::size_t min_value,
                       std::size_t max_value, std::string help) {
  return number_setting(name, SettingKind::bytes, std::to_string(default_value),
                        static_cast<double>(min_value), static_cast<double>(max_value),
                        std::move(help));
}

}  // namespace collbench
