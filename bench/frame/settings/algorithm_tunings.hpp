// The algorithms' tunings as the settings tables see them: a thin adapter over the registry
// (algorithms/algorithm_registry.hpp). Each implementation declares its tunings in its descriptor
// (name and CSV key, type, default, range, help, environment variable), and an --algo value names
// an implementation with some of them set ("ring:ctas=32"); a setting that takes such values
// (Setting::or_algorithm) is checked here, and --help lists the tunings from here.
#pragma once

#include <string>
#include <vector>

namespace collbench {

// The all-reduce implementations of the registry, "nccl" first.
std::vector<std::string> all_reduce_implementations();
// Throws UsageError naming the tuning unless every tuning set in `value` ("ring:ctas=32") is one
// its implementation declares, with an allowed value; `value` names a known implementation.
void check_tunings(const std::string& value);
// The --help section on every implementation and its tunings: values, default, environment
// variable.
std::string algorithm_tunings_help();

}  // namespace collbench
