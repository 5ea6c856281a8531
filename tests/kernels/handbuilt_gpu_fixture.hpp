// What the hand-built all-reduce GPU tests share: n ranks on GPUs 0..n-1 (communicators, streams),
// per-rank buffers, input fill, NCCL's reference result, the exact check and host read-back.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "algorithm.hpp"
#include "cuda_resources.hpp"
#include "nccl_communicator.hpp"
#include "test_values.cuh"
#include "gpu_test_support.hpp"

namespace collbench::testing {

CaseShape all_reduce_shape(DataType type, ReduceOp op, std::size_t count, int nranks,
                           bool in_place);
kernels::PatternParams pattern_of(const CaseShape& shape, std::uint64_t seed);

class GpuRanks {
 public:
  // Ranks on GPUs 0..nranks-1, each with buffers for `max_bytes` (plus room for an odd offset).
  GpuRanks(int nranks, std::size_t max_bytes);

  int size() const { return static_cast<int>(contexts_.size()); }
  const std::vector<RankContext>& contexts() const { return contexts_; }
  // Send/recv per rank: in place, one buffer; `offset_bytes` shifts both (unaligned tests).
  std::vector<RankBuffers> buffers(bool in_place, std::size_t offset_bytes = 0) const;

  void fill_inputs(const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                   std::uint64_t seed) const;
  // NCCL's all-reduce of the inputs into each rank's reference buffer.
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

// Empty when every rank's output equals NCCL's reference (integers bitwise, floating point within
// the type's tolerance) and all ranks' outputs are bitwise identical; else what differs.
std::string compare_with_reference(const CaseShape& shape,
                                   const std::vector<std::vector<unsigned char>>& outputs,
                                   const std::vector<std::vector<unsigned char>>& references);

}  // namespace collbench::testing
