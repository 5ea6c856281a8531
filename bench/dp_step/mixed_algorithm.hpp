// An --algo item names one all-reduce implementation ("ring") or a mixed pair ("copy_engine+ring")
// whose buckets alternate between the two, and what follows from the alternation: each bucket's
// implementation and communication lane, the lane count, the one reduction op for every bucket,
// and the knobs a row reports. Pure functions, so the CPU tests check them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data_type.hpp"

namespace collbench::dp {

// "copy_engine+ring" -> {"copy_engine", "ring"}, "nccl" -> {"nccl"}; "ring+" -> {"ring", ""}.
// Splits only: parse_dp_options rejects what is not one name or two distinct ones.
std::vector<std::string> implementations_of(std::string_view algo);

// Buckets alternate over `ways` choices, bucket 0 (the last layer's, communicated first) taking
// the first. A mixed pair's implementation and the communication lane both follow it, so with two
// lanes each lane carries only one implementation's buckets, serialized there.
int alternate_of(std::size_t bucket, int ways);

// The implementation whose collectives bucket `bucket` runs.
const std::string& implementation_of_bucket(const std::vector<std::string>& implementations,
                                            std::size_t bucket);

// Communication lanes the buckets alternate over, from whether each implementation's instances
// may run concurrently (CollectiveAlgorithm::instances_run_concurrently) and the lanes given:
// all of them when the one implementation's instances may overlap (copy_engine); for a pair, two
// (if given) when one of the two may run beside anything, each lane then serializing one
// implementation's buckets; otherwise one. Two SM-spinning implementations (ring, nccl) stay on
// one stream: their grids could starve each other, and two of NCCL's streams must not share a
// communicator.
int lane_plan(const std::vector<bool>& instances_run_concurrently, int lanes_given);

// Which gradient reductions one implementation can run for its buckets.
struct ReduceOpSupport {
  bool avg = false;
  bool sum = false;
};

// The op every gradient bucket uses, so that every gradient gets the same scale: avg when every
// implementation averages, else sum when every one sums (the update then divides by the rank
// count); nullopt when there is no common one.
std::optional<ReduceOp> common_gradient_op(const std::vector<ReduceOpSupport>& implementations);

// The changed knobs of every implementation `algo` names (the registry's AlgorithmChoice::config of
// each), joined with ';', each knob once: "ring_ctas=16" for copy_engine+ring.
std::string implementation_knobs(std::string_view algo);

}  // namespace collbench::dp
