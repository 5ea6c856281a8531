// Every implementation of every operation, in one table: NCCL's for each collective, then the
// hand-built all-reduce algorithms from their descriptors. --algo, --help, the plan and the
// training step look implementations up here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/algorithm.hpp"

namespace collbench {

const std::vector<AlgorithmEntry>& algorithm_registry();
// The names of the algorithms that implement `op` (always "nccl" first).
std::vector<std::string> algorithm_names(OpKind op);
// The first entry called `name` (every entry of one name makes the same algorithm for its op),
// or null when none is.
const AlgorithmEntry* find_algorithm(std::string_view name);
// The entry called `name` that implements `op`, or null when none does.
const AlgorithmEntry* find_algorithm(std::string_view name, OpKind op);

// What an implementation whose every transfer is an NCCL call can do (NCCL's own, ring_sendrecv).
AlgorithmCapabilities nccl_transfer_capabilities();

// "ring", "ring:ctas=64:slots=4": the named implementation (of `op` when there is one for it,
// else the first of that name) with its settings' defaults, overridden by their environment
// variables, overridden by the text. Throws UsageError naming an unknown implementation or a bad
// setting.
AlgorithmChoice resolve_algorithm(std::string_view text,
                                  const EnvironmentLookup& environment = process_environment());
// Every implementation's settings for --help: name, values, default and environment variable.
std::string algorithm_settings_help();

}  // namespace collbench
