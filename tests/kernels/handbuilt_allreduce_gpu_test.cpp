// The hand-built all-reduce algorithms (ring with its push and pull protocols, ring_sendrecv,
// oneshot, twoshot, copy_engine, copy_engine_ring) against NCCL on 2, 3, 4 and 8 GPUs: data types x
// reductions x counts (1, 7, a prime, 1M+3) x in/out of place, unaligned buffers, 2000 back-to-back
// launches, CUDA graph replays, and stopping a kernel whose peer never comes. Skipped, with the
// reason, when the GPUs are not there.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "algorithms/handbuilt_algorithms.hpp"
#include "core/errors.hpp"
#include "core/fused_update.hpp"
#include "handbuilt_gpu_fixture.hpp"
#include "peer_flags.cuh"
#include "runtime/cuda_resources.hpp"

namespace collbench::testing {
namespace {

constexpr std::size_t kLargeCount = (std::size_t{1} << 20) + 3;

const std::vector<DataType> kTypes = {DataType::float32, DataType::half,  DataType::bfloat16,
                                      DataType::float64, DataType::int32, DataType::int64};
const std::vector<ReduceOp> kOps = {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min,
                                    ReduceOp::avg};

std::string describe(const CaseShape& shape, std::string_view algorithm) {
  return std::string(algorithm) + " " + std::string(name_of(shape.type)) + " " +
         std::string(name_of(shape.op)) + " count " + std::to_string(shape.counts.param) +
         " ranks " + std::to_string(shape.nranks) +
         (shape.in_place ? " in-place" : " out-of-place");
}

Tunings default_tuning() {
  return {};
}

// Many small CTAs and slices even for small buffers, to exercise the ring's pipelining; push
// refills each of its 2 staging slots many times per launch.
RingTuning fine_ring_tuning(kernels::RingProtocol protocol) {
  RingTuning tuning;
  tuning.protocol = protocol;
  tuning.max_ctas = 7;
  tuning.min_part_bytes = 64;
  tuning.slice_bytes = 512;
  tuning.slots = 2;
  return tuning;
}

class EveryAlgorithm : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(EveryAlgorithm, MatchesNcclForEveryTypeReductionCountAndPlace) {
  const auto& [name, nranks] = GetParam();
  SKIP_WITHOUT_GPUS(nranks);
  GpuRanks gpus(nranks, kLargeCount * 8);
  auto algorithm = make_algorithm(name, gpus.contexts(), default_tuning());
  for (DataType type : kTypes) {
    for (ReduceOp op : kOps) {
      for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{1021}, kLargeCount}) {
        for (bool in_place : {false, true}) {
          const CaseShape shape = all_reduce_shape(type, op, count, nranks, in_place);
          EXPECT_EQ(run_and_compare(gpus, *algorithm, shape), "") << describe(shape, name);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, EveryAlgorithm,
                         ::testing::Combine(::testing::Values("ring", "ring_pull", "ring_sendrecv",
                                                              "oneshot", "oneshot_pdl", "twoshot",
                                                              "twoshot_slices", "copy_engine",
                                                              "copy_engine_ring"),
                                            ::testing::Values(2, 3, 4, 8)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "ranks";
                         });

// Parameter: "push" or "pull" (COLLBENCH_RING_PROTOCOL).
class RingProtocols : public ::testing::TestWithParam<std::string> {
 protected:
  kernels::RingProtocol protocol() const {
    return GetParam() == "pull" ? kernels::RingProtocol::pull : kernels::RingProtocol::push;
  }
};

TEST_P(RingProtocols, FineGeometryManyPartsAndSlices) {
  SKIP_WITHOUT_GPUS(3);
  GpuRanks gpus(3, kLargeCount * 8);
  auto ring = make_ring(gpus.contexts(), fine_ring_tuning(protocol()));
  for (DataType type : {DataType::float32, DataType::half, DataType::int64}) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg}) {
      for (std::size_t count :
           {std::size_t{7}, std::size_t{1021}, std::size_t{65537}, kLargeCount}) {
        for (bool in_place : {false, true}) {
          const CaseShape shape = all_reduce_shape(type, op, count, 3, in_place);
          EXPECT_EQ(run_and_compare(gpus, *ring, shape), "")
              << describe(shape, "ring " + GetParam() + " (fine geometry)");
        }
      }
    }
  }
}

// Four ranks and two slots: a slot's reuse is ordered by the credit alone (slots <= n - 2,
// README.md), with many slices per launch and launches back to back.
TEST_P(RingProtocols, FourRanksTwoSlotsManySlices) {
  SKIP_WITHOUT_GPUS(4);
  GpuRanks gpus(4, kLargeCount * 8);
  auto ring = make_ring(gpus.contexts(), fine_ring_tuning(protocol()));
  for (bool in_place : {false, true}) {
    const CaseShape shape =
        all_reduce_shape(DataType::int32, ReduceOp::sum, kLargeCount, 4, in_place);
    EXPECT_EQ(run_and_compare(gpus, *ring, shape), "") << describe(shape, "ring");
    EXPECT_EQ(launch_with_reused_buffers(gpus, *ring, shape, 50), 0u)
        << (in_place ? "in place" : "out of place");
    ring->check_health();
  }
}

INSTANTIATE_TEST_SUITE_P(Ring, RingProtocols, ::testing::Values("push", "pull"),
                         [](const auto& info) { return info.param; });

// Both protocols reduce each chunk once, in the same ring order: their outputs are bitwise equal.
TEST(Ring, PushAndPullAreBitwiseIdentical) {
  SKIP_WITHOUT_GPUS(3);
  GpuRanks gpus(3, kLargeCount * 8);
  auto push = make_algorithm("ring", gpus.contexts(), default_tuning());
  auto pull = make_algorithm("ring_pull", gpus.contexts(), default_tuning());
  for (DataType type : {DataType::float32, DataType::bfloat16}) {
    const CaseShape shape = all_reduce_shape(type, ReduceOp::sum, kLargeCount, 3, false);
    const std::vector<RankBuffers> buffers = gpus.buffers(false);
    std::vector<std::vector<std::vector<unsigned char>>> outputs;
    for (HandbuiltAlgorithm* algorithm : {push.get(), pull.get()}) {
      gpus.fill_inputs(buffers, shape, kSeed);
      algorithm->prepare(gpus.contexts(), buffers, shape);
      algorithm->launch(gpus.contexts(), buffers, shape, 1);
      outputs.push_back(gpus.read_outputs(buffers, shape));
      algorithm->check_health();
    }
    EXPECT_TRUE(outputs[0] == outputs[1]) << name_of(type);
  }
}

// A caller's buffer need not be 16-byte aligned: the kernels then move element by element.
TEST(AllAlgorithms, UnalignedBuffers) {
  SKIP_WITHOUT_GPUS(2);
  GpuRanks gpus(2, kLargeCount * 8);
  for (const char* name : {"ring", "ring_pull", "ring_sendrecv", "oneshot", "twoshot",
                           "copy_engine", "copy_engine_ring"}) {
    auto algorithm = make_algorithm(name, gpus.contexts(), default_tuning());
    for (DataType type : {DataType::float32, DataType::half}) {
      for (bool in_place : {false, true}) {
        const CaseShape shape = all_reduce_shape(type, ReduceOp::sum, 100003, 2, in_place);
        EXPECT_EQ(run_and_compare(gpus, *algorithm, shape, size_of(type)), "")
            << describe(shape, name) << " +1 element";
      }
    }
  }
}

int ranks_for_stress() {
  return largest_doubling_gpu_count();
}

class Repeated : public ::testing::TestWithParam<std::string> {};

// 2000 launches queued back to back, in place (max is idempotent, so the result stays defined).
TEST_P(Repeated, TwoThousandBackToBackLaunches) {
  SKIP_WITHOUT_GPUS(2);
  const int nranks = ranks_for_stress();
  GpuRanks gpus(nranks, 262147 * 4);
  auto algorithm = make_algorithm(GetParam(), gpus.contexts(), default_tuning());
  const CaseShape shape = all_reduce_shape(DataType::float32, ReduceOp::max, 262147, nranks, true);
  const std::vector<RankBuffers> buffers = gpus.buffers(true);
  gpus.fill_inputs(buffers, shape, kSeed);
  algorithm->prepare(gpus.contexts(), buffers, shape);
  gpus.reset_counters();
  algorithm->launch(gpus.contexts(), buffers, shape, 2000);
  gpus.enqueue_check(buffers, shape, kSeed);
  EXPECT_EQ(gpus.mismatches(), 0u);
  algorithm->check_health();
}

// 2000 iterations of: new input, all-reduce, check, poison the output. A peer that read a
// rank's buffers after that rank's collective had completed would see the next input or the
// poison, and the count of wrong elements would show it.
TEST_P(Repeated, TwoThousandLaunchesWithBuffersReusedAtOnce) {
  SKIP_WITHOUT_GPUS(2);
  const int nranks = ranks_for_stress();
  GpuRanks gpus(nranks, 262147 * 4);
  auto algorithm = make_algorithm(GetParam(), gpus.contexts(), default_tuning());
  const CaseShape shape = all_reduce_shape(DataType::int32, ReduceOp::sum, 262147, nranks, false);
  EXPECT_EQ(launch_with_reused_buffers(gpus, *algorithm, shape, 2000), 0u);
  algorithm->check_health();
}

// Captures `body` on every rank's stream into one graph per rank, in the runner's capture mode
// (relaxed: the runner's rank threads capture side by side).
std::vector<GraphExec> capture(const GpuRanks& gpus, const std::function<void()>& body) {
  for (const RankContext& rank : gpus.contexts()) {
    ScopedDevice on(rank.device, rank.rank);
    CB_CUDA_CHECK(cudaStreamBeginCapture(rank.stream, cudaStreamCaptureModeRelaxed));
  }
  body();
  std::vector<GraphExec> executables;
  for (const RankContext& rank : gpus.contexts()) {
    ScopedDevice on(rank.device, rank.rank);
    cudaGraph_t graph = nullptr;
    CB_CUDA_CHECK(cudaStreamEndCapture(rank.stream, &graph));
    Graph owned(graph, rank.device);
    cudaGraphExec_t exec = nullptr;
    CB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    executables.emplace_back(exec, rank.device);
  }
  return executables;
}

void replay(const GpuRanks& gpus, const std::vector<GraphExec>& executables, int times) {
  for (int i = 0; i < times; ++i) {
    for (const RankContext& rank : gpus.contexts()) {
      ScopedDevice on(rank.device, rank.rank);
      CB_CUDA_CHECK(cudaGraphLaunch(executables[rank.rank].get(), rank.stream));
    }
  }
}

// 10 launches captured into a graph per rank, replayed 50 times: the flags' counts advance on
// the device, so every replay (and a plain launch afterwards) finds them consistent.
TEST_P(Repeated, GraphOfTenLaunchesReplayedFiftyTimes) {
  SKIP_WITHOUT_GPUS(2);
  const int nranks = ranks_for_stress();
  GpuRanks gpus(nranks, 262147 * 4);
  auto algorithm = make_algorithm(GetParam(), gpus.contexts(), default_tuning());
  const CaseShape shape = all_reduce_shape(DataType::float32, ReduceOp::sum, 262147, nranks, false);
  const std::vector<RankBuffers> buffers = gpus.buffers(false);
  gpus.fill_inputs(buffers, shape, kSeed);
  algorithm->prepare(gpus.contexts(), buffers, shape);
  const auto plain = capture(gpus, [&] {
    for (int i = 0; i < 10; ++i) algorithm->launch(gpus.contexts(), buffers, shape, 1);
  });
  gpus.reset_counters();
  replay(gpus, plain, 50);
  gpus.enqueue_check(buffers, shape, kSeed);
  EXPECT_EQ(gpus.mismatches(), 0u) << "after 50 replays";

  // Inside the graph, each launch is checked and its output poisoned before the next.
  const auto checked = capture(gpus, [&] {
    for (int i = 0; i < 10; ++i) {
      gpus.fill_inputs(buffers, shape, kSeed + 1);
      algorithm->launch(gpus.contexts(), buffers, shape, 1);
      gpus.enqueue_check(buffers, shape, kSeed + 1);
      gpus.enqueue_poison(buffers, shape);
    }
  });
  gpus.reset_counters();
  replay(gpus, checked, 50);
  EXPECT_EQ(gpus.mismatches(), 0u) << "checked inside 50 replays";

  gpus.reset_counters();
  gpus.fill_inputs(buffers, shape, kSeed + 2);
  algorithm->launch(gpus.contexts(), buffers, shape, 1);
  gpus.enqueue_check(buffers, shape, kSeed + 2);
  EXPECT_EQ(gpus.mismatches(), 0u) << "plain launch after the replays";
  algorithm->check_health();
}

INSTANTIATE_TEST_SUITE_P(Algorithms, Repeated,
                         ::testing::Values("ring", "ring_pull", "ring_sendrecv", "oneshot",
                                           "twoshot", "twoshot_slices", "copy_engine",
                                           "copy_engine_ring", "ring_direct", "oneshot_direct",
                                           "twoshot_direct", "oneshot_pdl", "oneshot_nopdl"),
                         [](const auto& info) { return info.param; });

class PeerKernels : public ::testing::TestWithParam<std::string> {};

// Only rank 0 launches (`aggregate` times): it waits for rank 1 until the host asks it to stop.
// Afterwards the next prepare() resets the flags and the algorithm works again.
void expect_hang_ends_when_aborted(const std::string& name, std::size_t count, int aggregate,
                                   Tunings tuning) {
  GpuRanks gpus(2, count * 4);
  tuning.peer.timeout_s = 0;  // only the abort may end the wait
  auto algorithm = make_algorithm(name, gpus.contexts(), tuning);
  const CaseShape shape = all_reduce_shape(DataType::float32, ReduceOp::sum, count, 2, false);
  const std::vector<RankBuffers> buffers = gpus.buffers(false);
  gpus.fill_inputs(buffers, shape, kSeed);
  algorithm->prepare(gpus.contexts(), buffers, shape);
  algorithm->launch({gpus.contexts()[0]}, {buffers[0]}, shape, aggregate);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  {
    ScopedDevice on(0, 0);
    EXPECT_EQ(cudaStreamQuery(gpus.contexts()[0].stream), cudaErrorNotReady)
        << "rank 0 should still be waiting";
  }
  algorithm->request_abort();
  const auto asked = std::chrono::steady_clock::now();
  gpus.synchronize();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(1));
  EXPECT_THROW(algorithm->check_health(), GpuError);
  EXPECT_EQ(run_and_compare(gpus, *algorithm, shape), "") << "after the abort";
}

TEST_P(PeerKernels, HangOnAMissingPeerEndsWhenAborted) {
  SKIP_WITHOUT_GPUS(2);
  expect_hang_ends_when_aborted(GetParam(), 4096, 1, Tunings{});
}

// Parameter: "copy_engine" or "copy_engine_ring".
class CopyEngine : public ::testing::TestWithParam<std::string> {};

// copy_engine's waits are stream memory operations: an abort must release every queued one,
// here 3 launches of 5 rounds each.
TEST_P(CopyEngine, HangOnAMissingPeerEndsWhenAborted) {
  SKIP_WITHOUT_GPUS(2);
  Tunings tuning;
  tuning.copy_engine.round_bytes = 64 << 10;
  expect_hang_ends_when_aborted(GetParam(), 5 * (16 << 10), 3, tuning);
}

// Rounds of a few lines, so one launch is hundreds of rounds, driven from this one thread (the
// lazy-loading hazard of handbuilt_copy_engine.cpp's warm_up, which grows with the ranks one
// thread drives); odd counts; 3 ranks (2 on a 2-GPU machine), and 8 where 8 GPUs are visible.
TEST_P(CopyEngine, ManySmallRounds) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<int> rank_counts = {std::min(visible_gpu_count(), 3)};
  if (visible_gpu_count() >= 8) rank_counts.push_back(8);
  for (int nranks : rank_counts) {
    GpuRanks gpus(nranks, kLargeCount * 8);
    Tunings tuning;
    tuning.copy_engine.round_bytes = 4096;
    auto algorithm = make_algorithm(GetParam(), gpus.contexts(), tuning);
    for (DataType type : {DataType::float32, DataType::bfloat16, DataType::int64}) {
      for (std::size_t count : {std::size_t{1021}, std::size_t{100003}}) {
        for (bool in_place : {false, true}) {
          const CaseShape shape = all_reduce_shape(type, ReduceOp::sum, count, nranks, in_place);
          EXPECT_EQ(run_and_compare(gpus, *algorithm, shape), "") << describe(shape, GetParam());
        }
      }
    }
    EXPECT_EQ(launch_with_reused_buffers(
                  gpus, *algorithm,
                  all_reduce_shape(DataType::int32, ReduceOp::sum, 100003, nranks, false), 200),
              0u)
        << nranks << " ranks";
  }
}

// Reductions of one or three blocks (COLLBENCH_CE_REDUCE_BLOCKS): the grid-stride loop covers
// every element, in and out of place.
TEST_P(CopyEngine, FewReductionBlocks) {
  SKIP_WITHOUT_GPUS(2);
  const int nranks = std::min(visible_gpu_count(), 4);
  GpuRanks gpus(nranks, kLargeCount * 8);
  for (int blocks : {1, 3}) {
    Tunings tuning;
    tuning.copy_engine.reduce_blocks = blocks;
    auto algorithm = make_algorithm(GetParam(), gpus.contexts(), tuning);
    for (DataType type : {DataType::float32, DataType::bfloat16}) {
      for (bool in_place : {false, true}) {
        const CaseShape shape = all_reduce_shape(type, ReduceOp::avg, 1000003, nranks, in_place);
        EXPECT_EQ(run_and_compare(gpus, *algorithm, shape), "")
            << describe(shape, GetParam()) << ", " << blocks << " blocks";
      }
    }
  }
}

// With a timeout and no abort, a kernel gives up by itself and says which rank waited.
TEST_P(PeerKernels, HangOnAMissingPeerEndsAtTheTimeout) {
  SKIP_WITHOUT_GPUS(2);
  GpuRanks gpus(2, 4096 * 4);
  Tunings tuning;
  tuning.peer.timeout_s = 0.2;
  auto algorithm = make_algorithm(GetParam(), gpus.contexts(), tuning);
  const CaseShape shape = all_reduce_shape(DataType::float32, ReduceOp::sum, 4096, 2, false);
  const std::vector<RankBuffers> buffers = gpus.buffers(false);
  gpus.fill_inputs(buffers, shape, kSeed);
  algorithm->prepare(gpus.contexts(), buffers, shape);
  algorithm->launch({gpus.contexts()[1]}, {buffers[1]}, shape, 1);
  gpus.synchronize();
  try {
    algorithm->check_health();
    ADD_FAILURE() << "check_health() should report the timeout";
  } catch (const GpuError& error) {
    EXPECT_NE(std::string(error.what()).find("rank 1 waited"), std::string::npos) << error.what();
  }
  EXPECT_EQ(run_and_compare(gpus, *algorithm, shape), "") << "after the timeout";
}

// A caller capturing its stream gets the kernel itself, not a launch of the algorithm's own
// one-kernel graph (a child-graph node): the caller's graph stays one flat graph.
TEST_P(PeerKernels, ACapturingCallerGetsTheKernelItself) {
  SKIP_WITHOUT_GPUS(2);
  GpuRanks gpus(2, 4096 * 4);
  auto algorithm = make_algorithm(GetParam(), gpus.contexts(), default_tuning());
  const CaseShape shape = all_reduce_shape(DataType::float32, ReduceOp::sum, 4096, 2, false);
  const std::vector<RankBuffers> buffers = gpus.buffers(false);
  algorithm->prepare(gpus.contexts(), buffers, shape);
  for (const RankContext& rank : gpus.contexts()) {
    ScopedDevice on(rank.device, rank.rank);
    CB_CUDA_CHECK(cudaStreamBeginCapture(rank.stream, cudaStreamCaptureModeRelaxed));
    algorithm->launch({rank}, {buffers[rank.rank]}, shape, 1);  // captured: nothing runs
    cudaGraph_t captured = nullptr;
    CB_CUDA_CHECK(cudaStreamEndCapture(rank.stream, &captured));
    const Graph graph(captured, rank.device);
    std::size_t count = 0;
    CB_CUDA_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &count));
    ASSERT_EQ(count, 1u) << GetParam() << " rank " << rank.rank;
    cudaGraphNode_t node = nullptr;
    CB_CUDA_CHECK(cudaGraphGetNodes(graph.get(), &node, &count));
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    CB_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeKernel) << GetParam() << " rank " << rank.rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Exchanges, CopyEngine,
                         ::testing::Values("copy_engine", "copy_engine_ring"),
                         [](const auto& info) { return info.param; });

INSTANTIATE_TEST_SUITE_P(Algorithms, PeerKernels,
                         ::testing::Values("ring", "ring_pull", "oneshot", "twoshot"),
                         [](const auto& info) { return info.param; });

// Above kMaxPeerRanks the peer algorithms skip the case with the reason (every process agrees:
// it depends on the shape only); ring_sendrecv has no such limit.
TEST(AllAlgorithms, MoreRanksThanPeerKernelsTakeAreSkippedWithAReason) {
  SKIP_WITHOUT_GPUS(1);  // the algorithms map an abort word into the GPUs' address space
  const int too_many = kernels::kMaxPeerRanks + 1;
  const CaseShape shape = all_reduce_shape(DataType::float32, ReduceOp::sum, 1024, too_many, false);
  for (const char* name : {"ring", "oneshot", "twoshot", "copy_engine", "copy_engine_ring"}) {
    auto algorithm = make_handbuilt_algorithm(name, {});
    EXPECT_NE(algorithm->unsupported_reason(shape).find("at most 8 ranks"), std::string::npos)
        << name << ": " << algorithm->unsupported_reason(shape);
  }
}

// What a descriptor says of the fused update is what its algorithm offers: the training step
// checks options against the one and launches through the other.
TEST(AllAlgorithms, FusedUpdateIsWhatTheDescriptorSays) {
  SKIP_WITHOUT_GPUS(1);  // the algorithms map an abort word into the GPUs' address space
  for (const HandbuiltDescriptor* descriptor : handbuilt_descriptors()) {
    auto algorithm = make_handbuilt_algorithm(descriptor->name, {});
    EXPECT_EQ(algorithm->fused_update() != nullptr, descriptor->capabilities.fused_update)
        << descriptor->name;
  }
}

TEST(Oneshot, LargeMessagesAreSkippedWithAReason) {
  SKIP_WITHOUT_GPUS(2);
  GpuRanks gpus(2, 16);
  auto oneshot = make_handbuilt_algorithm("oneshot", gpus.contexts());
  const std::string why = oneshot->unsupported_reason(
      all_reduce_shape(DataType::float32, ReduceOp::sum, 64u << 20, 2, false));
  EXPECT_NE(why.find("small messages"), std::string::npos) << why;
  EXPECT_EQ(oneshot->unsupported_reason(
                all_reduce_shape(DataType::float32, ReduceOp::sum, 1024, 2, false)),
            "");
}

}  // namespace
}  // namespace collbench::testing
