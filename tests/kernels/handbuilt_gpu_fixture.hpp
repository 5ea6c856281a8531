// What the hand-built all-reduce GPU tests share: n ranks on GPUs 0..n-1 (communicators, streams),
// or on fewer GPUs taken in turn, per-rank buffers, input fill, NCCL's reference result, the exact
// check and host read-back.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/handbuilt_copy_engine.hpp"
#include "algorithms/handbuilt_oneshot.hpp"
#include "algorithms/handbuilt_ring.hpp"
#include "algorithms/handbuilt_twoshot.hpp"
#include "core/algorithm.hpp"
#include "gpu_test_support.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"
#include "test_values.cuh"

namespace collbench::testing {

CaseShape all_reduce_shape(DataType type, ReduceOp op, std::size_t count, int nranks,
                           bool in_place);
kernels::PatternParams pattern_of(const CaseShape& shape, std::uint64_t seed);

class GpuRanks {
 public:
  // Ranks on GPUs 0..nranks-1, each with buffers for `max_bytes` (plus room for an odd offset).
  // With `gpus` below nranks, rank r runs on GPU r % gpus and there are no NCCL communicators
  // (NCCL refuses two ranks on one GPU): only the exact check can judge the output.
  GpuRanks(int nranks, std::size_t max_bytes, int gpus = 0);

  int size() const { return static_cast<int>(contexts_.size()); }
  const std::vector<RankContext>& contexts() const { return contexts_; }
  // Send/recv per rank: in place, one buffer; `offset_bytes` shifts both (unaligned tests).
  std::vector<RankBuffers> buffers(bool in_place, std::size_t offset_bytes = 0) const;

  void fill_inputs(const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                   std::uint64_t seed) const;
  // Whether the ranks have NCCL communicators, hence nccl_reference (one rank per GPU).
  bool has_nccl_reference() const { return !communicators_.empty(); }
  // NCCL's all-reduce of the inputs into each rank's reference buffer (one rank per GPU only).
  void nccl_reference(const std::vector<RankBuffers>& buffers, const CaseShape& shape) const;
  // Enqueues the exact check of every rank's output into its device counter (not reset).
  void enqueue_check(const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                     std::uint64_t seed) const;
  void enqueue_poison(const std::vector<RankBuffers>& buffers, const CaseShape& shape) const;
  void reset_counters() const;
  unsigned long long mismatches() const;  // synchronises, sums every rank's counter
  void synchronize() const;

  // Bytes of each rank's output and of NCCL's reference (synchronises).
  std::vector<std::vector<unsigned char>> read_outputs(const std::vector<RankBuffers>& buffers,
                                                       const CaseShape& shape) const;
  std::vector<std::vector<unsigned char>> read_references(const CaseShape& shape) const;

 private:
  std::vector<NcclCommunicator> communicators_;
  std::vector<Stream> streams_;
  std::vector<RankContext> contexts_;
  std::vector<DeviceBuffer> first_, second_, reference_, counter_;
};

constexpr std::uint64_t kSeed = 0x5EED;  // of the inputs' pattern

// Every hand-built algorithm's tuning, for the tests that choose an algorithm by label.
struct Tunings {
  PeerTuning peer;  // given to whichever peer algorithm is made, in place of its own `peer`
  RingTuning ring;
  OneshotTuning oneshot;
  TwoshotTuning twoshot;
  CopyEngineTuning copy_engine;
};

// An algorithm by test label, made with its tuning of `tunings`: "ring" is the ring with its
// default (push) protocol, "ring_pull" the ring with COLLBENCH_RING_PROTOCOL=pull, "<name>_direct"
// the algorithm with COLLBENCH_PEER_LAUNCH=direct (a kernel launch instead of its one-kernel
// graph), "oneshot_pdl" and "oneshot_nopdl" oneshot with COLLBENCH_ONESHOT_PDL=on and off
// ("oneshot" chooses by size), "twoshot_slices" twoshot with 8 CTAs and 4 KiB slices (many slices
// per launch, so both staging slots are reused); other labels are algorithm names.
std::unique_ptr<HandbuiltAlgorithm> make_algorithm(const std::string& label,
                                                   const std::vector<RankContext>& ranks,
                                                   Tunings tunings = {});

// Runs one case once with inputs of `seed` and returns what is wrong with it ("" when nothing):
// elements off the exact expected value, and, with one rank per GPU, differences from NCCL's
// result; with ranks sharing GPUs, outputs that are not bitwise identical across ranks.
std::string run_and_compare(GpuRanks& gpus, CollectiveAlgorithm& algorithm, const CaseShape& shape,
                            std::size_t offset_bytes = 0);

// `launches` launches back to back, each with fresh inputs, checked and then poisoned as soon as
// it completes (stream order): the caller reuses the buffers at once. Returns wrong elements.
unsigned long long launch_with_reused_buffers(GpuRanks& gpus, CollectiveAlgorithm& algorithm,
                                              const CaseShape& shape, int launches);

// Empty when every rank's output equals NCCL's reference (integers bitwise, floating point within
// the type's tolerance) and all ranks' outputs are bitwise identical; else what differs.
std::string compare_with_reference(const CaseShape& shape,
                                   const std::vector<std::vector<unsigned char>>& outputs,
                                   const std::vector<std::vector<unsigned char>>& references);

}  // namespace collbench::testing
