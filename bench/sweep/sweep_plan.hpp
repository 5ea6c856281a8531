// The sweep plan: the command line expanded into a flat list of cases (pure data, no GPU).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/collective_registry.hpp"
#include "core/peer_traffic.hpp"
#include "sweep/options.hpp"

namespace collbench {

struct Case {
  const CollectiveSpec* spec;
  AlgorithmChoice algorithm;  // which implementation, with which settings
  int ranks;
  DataType type;
  ReduceOp op;  // ReduceOp::none when the collective does not reduce
  int root;     // -1 when it has no root
  bool in_place;
  std::size_t requested_bytes;  // the sweep's size before nccl-tests' rounding
  ElementCounts counts;         // what is actually moved
  int repeat = 0;               // the pass of --repeat that measures it
  BufferRegistration registration = BufferRegistration::none;  // --register
  // Who sends how much to whom, for ops that take traffic (alltoallv); shared by the cases of one
  // size and traffic. Null for the others.
  std::shared_ptr<const PeerTraffic> traffic = nullptr;
  // Set when the plan already knows that the case cannot run: its row says skipped, and why.
  std::string skip_reason = {};
  std::size_t bytes() const { return case_bytes(*spec, counts, type); }
  // The CSV algo column.
  std::string algo() const { return std::string(algorithm.name()); }
  // The CSV config column: the algorithm's changed settings, the case's traffic, then its
  // registration, ';' apart.
  std::string config() const;
  CaseShape shape() const { return {spec, counts, type, op, root, ranks, in_place, registration, traffic.get()}; }
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

// Every case, the whole sweep once per pass of --repeat; within a pass grouped by rank count (so
// communicators are made once per count), then --register mode (so each mode's buffers and
// registrations are made once per count), then op, algo, dtype, redop, root, alltoallv's traffic
// (each --a2av-spread), size, in/out of place. Sizes whose nccl-tests rounding gives the same
// element counts as the size before are dropped, so no two cases measure the same thing. With
// --a2av-matrix, alltoallv has one case per dtype, of the matrix's bytes, skipped (skip_reason) on
// rank counts other than its dimension. Throws UsageError when a GPU count exceeds `visible`
// (unless `listing`: a list needs no GPU), a root is outside the ranks, an algo does not exist or
// has a bad setting, no rank count fits the matrix or its entries are not whole elements of a
// type. --algo entries that make the same implementation with the same settings ("nccl,nccl",
// "ring,all") are measured once.
std::vector<Case> build_sweep(const Options& options, int visible_gpus, bool listing = false);

}  // namespace collbench
