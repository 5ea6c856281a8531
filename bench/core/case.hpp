// One measured case: which collective, implementation, GPUs, type, reduction, root, size and
// communicator settings: plain data, what every app hands the engine's runner and every report
// row is keyed by.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/buffer_registration.hpp"
#include "core/collective_registry.hpp"
#include "core/communicator_settings.hpp"
#include "core/peer_traffic.hpp"

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

// Unique, filterable name: "all_reduce/nccl/ranks:4/float/sum/root:-1/out_of_place/bytes:1048576".
std::string benchmark_name(const Case& c);
// Human name for consoles and NVTX: "all_reduce nccl float sum 4r 1 MiB in-place".
std::string display_name(const Case& c);

}  // namespace collbench
