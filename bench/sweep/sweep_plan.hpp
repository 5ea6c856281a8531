// The sweep plan: the command line expanded into a flat list of cases (pure data, no GPU).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/collective_registry.hpp"
#include "core/communicator_settings.hpp"
#include "core/peer_traffic.hpp"
#include "sweep/options.hpp"

namespace collbench {

struct Case {
  const CollectiveSpec* spec;
  AlgorithmChoice algorithm;  // which implementation, with which settings
  int ranks;                  // GPUs of the case (every split group's together)
  DataType type;
  ReduceOp op;  // ReduceOp::none when the collective does not reduce
  int root;     // -1 when it has no root; a rank of the group under --split
  bool in_place;
  std::size_t requested_bytes;  // the sweep's size before nccl-tests' rounding
  ElementCounts counts;         // what is actually moved, per rank of one communicator
  int repeat = 0;               // the pass of --repeat that measures it
  // How its communicators are made (NCCL's algorithm, protocol, CTA limit; the split rule).
  CommunicatorSettings communicator;
  BufferRegistration registration = BufferRegistration::none;  // --register
  // Who sends how much to whom, for ops that take traffic (alltoallv), among the ranks of one
  // communicator (a group's under --split); shared by the cases of one size and traffic. Null for
  // the others.
  std::shared_ptr<const PeerTraffic> traffic = nullptr;
  // Set when the plan already knows that the case cannot run: its row says skipped, and why.
  std::string skip_reason = {};
  std::size_t bytes() const { return case_bytes(*spec, counts, type); }
  // The groups the ranks run in (one group of all without --split), and the ranks of one
  // communicator: a group's size (rank 0's group; the plan skips a split into unequal groups).
  // Counts, roots, traffic, checks and busbw are per communicator, as nccl-tests' are per split
  // group.
  std::vector<std::vector<int>> groups() const { return communicator_groups(communicator, ranks); }
  int group_ranks() const { return static_cast<int>(groups().front().size()); }
  // The CSV algo column.
  std::string algo() const { return std::string(algorithm.name()); }
  // The CSV config column, ';' apart: the algorithm's changed settings, the case's traffic, its
  // communicators' settings, then its registration ("ring_ctas=32", "a2av_spread=0.5",
  // "nccl_algo=Ring;nccl_proto=LL", "split=MOD 2;groups=2", "register=local").
  std::string config() const;
  // What the algorithm sees: one communicator's ranks (a group's under --split).
  CaseShape shape() const {
    return {spec, counts, type, op, root, group_ranks(), in_place, registration, traffic.get()};
  }
};

// Limits that turn a typo (-f 1.0001, -i 1) into an error instead of an endless sweep.
inline constexpr std::size_t kMaxSizes = 10'000;
inline constexpr std::size_t kMaxCases = 1'000'000;

// Unique, filterable name: "all_reduce/nccl/ranks:4/float/sum/root:-1/out_of_place/bytes:1048576".
std::string benchmark_name(const Case& c);
// Human name for consoles and NVTX: "all_reduce nccl float sum 4r 1 MiB in-place".
std::string display_name(const Case& c);

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
