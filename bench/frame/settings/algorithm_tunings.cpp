// The registry's implementations and tunings, read for the settings tables.
#include "frame/settings/algorithm_tunings.hpp"

#include "algorithms/algorithm_registry.hpp"
#include "core/algorithm.hpp"

namespace collbench {

std::vector<std::string> all_reduce_implementations() {
  return algorithm_names(OpKind::all_reduce);
}

void check_tunings(const std::string& value) {
  // The registry resolves the tunings as a run will: the same values pass, the same fail.
  if (value.find(':') != std::string::npos) resolve_algorithm(value);
}

std::string algorithm_tunings_help() {
  return "Implementations and their settings (--algo NAME:SETTING=VALUE; the environment variable "
         "sets the default for the whole run):\n" +
         algorithm_settings_help();
}

}  // namespace collbench
