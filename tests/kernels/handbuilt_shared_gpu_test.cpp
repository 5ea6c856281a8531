// The peer-to-peer hand-built algorithms (ring with both protocols, oneshot, copy_engine) at more
// ranks than there are GPUs: 3, 5 and 8 ranks dealt in turn onto the visible GPUs, so every rank
// count up to kMaxPeerRanks runs before a machine with that many GPUs is lent. Ranks on one GPU
// reach each other's memory directly, the others over NVLink. NCCL refuses two ranks on one GPU,
// so it cannot be the reference here: every element is checked against its exact expected value,
// and every rank's output must be bitwise identical to rank 0's. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "algorithms/handbuilt_algorithms.hpp"
#include "handbuilt_gpu_fixture.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench::testing {
namespace {

// Ranks may share a GPU; their kernels wait for one another, so all of them must be resident at
// once: few, small ring CTAs (several slices per chunk still), and a timeout that fails a test
// instead of hanging it should they not be. The label ("ring_pull" ...) is make_algorithm's.
std::unique_ptr<HandbuiltAlgorithm> make_shared(const std::string& label,
                                                const std::vector<RankContext>& ranks) {
  Tunings tuning;
  tuning.peer.allow_shared_gpus = true;
  tuning.peer.timeout_s = 20;
  tuning.ring.max_ctas = 4;
  tuning.ring.large_ctas = 4;  // whatever the buffer
  tuning.ring.min_part_bytes = 256;
  tuning.ring.slice_bytes = 4096;
  tuning.ring.slots = 2;
  tuning.twoshot.ctas = 4;  // twoshot's CTAs of every rank sharing a GPU must fit on it too
  tuning.twoshot.slice_bytes = 4096;
  return make_algorithm(label, ranks, tuning);
}

// Fewer GPUs than ranks, so that some ranks always share one.
int gpus_for(int nranks) {
  return std::min(visible_gpu_count(), nranks - 1);
}

class SharedGpus : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(SharedGpus, ExactAndIdenticalAcrossRanks) {
  const auto& [label, nranks] = GetParam();
  SKIP_WITHOUT_GPUS(1);
  constexpr std::size_t kMaxCount = 65537;  // above oneshot's low-latency limit for 4-byte types
  GpuRanks gpus(nranks, kMaxCount * 8, gpus_for(nranks));
  auto algorithm = make_shared(label, gpus.contexts());
  const std::vector<std::tuple<DataType, ReduceOp>> cases = {{DataType::float32, ReduceOp::sum},
                                                             {DataType::float32, ReduceOp::avg},
                                                             {DataType::bfloat16, ReduceOp::max},
                                                             {DataType::int32, ReduceOp::prod},
                                                             {DataType::int64, ReduceOp::min}};
  for (const auto& [type, op] : cases) {
    for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{1021}, kMaxCount}) {
      for (bool in_place : {false, true}) {
        const CaseShape shape = all_reduce_shape(type, op, count, nranks, in_place);
        EXPECT_EQ(run_and_compare(gpus, *algorithm, shape), "")
            << label << " " << name_of(type) << " " << name_of(op) << " count " << count << " "
            << nranks << " ranks on " << gpus_for(nranks) << " GPUs"
            << (in_place ? " in place" : " out of place");
      }
    }
  }
}

// Launches back to back with the buffers reused at once: a rank that read a peer's buffers late
// would see the next input or the poison.
TEST_P(SharedGpus, TwoHundredLaunchesWithBuffersReusedAtOnce) {
  const auto& [label, nranks] = GetParam();
  SKIP_WITHOUT_GPUS(1);
  constexpr std::size_t kCount = 65537;
  GpuRanks gpus(nranks, kCount * 4, gpus_for(nranks));
  auto algorithm = make_shared(label, gpus.contexts());
  const CaseShape shape = all_reduce_shape(DataType::int32, ReduceOp::sum, kCount, nranks, false);
  EXPECT_EQ(launch_with_reused_buffers(gpus, *algorithm, shape, 200), 0u)
      << label << " " << nranks << " ranks on " << gpus_for(nranks) << " GPUs";
  algorithm->check_health();
}

INSTANTIATE_TEST_SUITE_P(Ranks, SharedGpus,
                         ::testing::Combine(::testing::Values("ring", "ring_pull", "oneshot",
                                                              "twoshot", "copy_engine",
                                                              "copy_engine_ring"),
                                            ::testing::Values(3, 5, 8)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "ranks";
                         });

}  // namespace
}  // namespace collbench::testing
