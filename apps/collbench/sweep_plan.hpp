// The sweep plan: the command line expanded into a flat list of cases (pure data, no GPU).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collbench/options.hpp"
#include "core/case.hpp"

namespace collbench {

// Limits that turn a typo (-f 1.0001, -i 1) into an error instead of an endless sweep.
inline constexpr std::size_t kMaxSizes = 10'000;
inline constexpr std::size_t kMaxCases = 1'000'000;

// Sizes from min to max: multiplied by the factor (nccl-tests: size *= factor) or stepped by bytes.
std::vector<std::size_t> sweep_sizes(const Options& options);

// Every case, the whole sweep once per pass of --repeat. Within a pass grouped by rank count (so
// communicators are made once per count), then by communicator settings in the order they first
// appear (so each combination's communicators are made once), then --register mode (so each
// mode's buffers and registrations are made once per communicator), then op, algo, dtype, redop,
// root, alltoallv's traffic (each --a2av-spread), size, in/out of place. Only implementations with
// the nccl_communicator_variants capability (NCCL) are expanded over --nccl-algo, --nccl-proto and
// --nccl-max-ctas; every case carries --split, and its counts, roots and traffic are those of one
// split group. Sizes whose nccl-tests rounding gives the same element counts as the size before
// are dropped, so no two cases measure the same thing. With --a2av-matrix, alltoallv has one case
// per dtype, of the matrix's bytes, skipped (skip_reason) where a communicator's ranks are not its
// dimension. Cases known not to run get skip_reason: --split with a hand-built algorithm or into
// unequal groups. Throws UsageError when a GPU count exceeds `visible` (unless `listing`: a list
// needs no GPU), a root is outside the ranks (of a group under --split), an algo does not exist or
// has a bad setting, no communicator's ranks fit the matrix or its entries are not whole elements
// of a type. --algo entries that make the same implementation with the same settings
// ("nccl,nccl", "ring,all") are measured once.
std::vector<Case> build_sweep(const Options& options, int visible_gpus, bool listing = false);

}  // namespace collbench
