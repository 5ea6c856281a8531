// memsets_to_kernels (graph_memsets.hpp): the kernel nodes write what the memset nodes wrote, in
// the same order, and run at the priority of the kernels that wait on them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/errors.hpp"
#include "fill_check.hpp"
#include "gpu_test_support.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/graph_memsets.hpp"
#include "runtime/stream_memops.hpp"

namespace collbench::testing {
namespace {

std::vector<cudaGraphNode_t> nodes_of_type(cudaGraph_t graph, cudaGraphNodeType type) {
  std::size_t count = 0;
  CB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CB_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  std::vector<cudaGraphNode_t> matching;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType node_type{};
    CB_CUDA_CHECK(cudaGraphNodeGetType(node, &node_type));
    if (node_type == type) matching.push_back(node);
  }
  return matching;
}

cudaGraphNode_t add_memset(cudaGraph_t graph, cudaGraphNode_t after, void* dst,
                           unsigned element_size, unsigned value, std::size_t width,
                           std::size_t height = 1, std::size_t pitch = 0) {
  cudaMemsetParams params{};
  params.dst = dst;
  params.elementSize = element_size;
  params.value = value;
  params.width = width;
  params.height = height;
  params.pitch = pitch;
  cudaGraphNode_t node = nullptr;
  CB_CUDA_CHECK(
      cudaGraphAddMemsetNode(&node, graph, after ? &after : nullptr, after ? 1 : 0, &params));
  return node;
}

template <typename Element>
void write(std::vector<unsigned char>& bytes, std::size_t offset, Element value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

TEST(GraphMemsets, KernelNodesWriteTheSameBytesInTheSameOrder) {
  SKIP_WITHOUT_GPUS(1);
  ScopedDevice on(0, 0);
  constexpr std::size_t kBytes = 4096;
  DeviceBuffer buffer(0, kBytes);
  auto* base = buffer.as<unsigned char>();
  CB_CUDA_CHECK(cudaMemset(base, 0, kBytes));
  cudaGraph_t raw = nullptr;
  CB_CUDA_CHECK(cudaGraphCreate(&raw, 0));
  const Graph graph(raw, 0);
  // A chain whose later nodes overwrite part of the earlier ones: order matters.
  cudaGraphNode_t node = add_memset(raw, nullptr, base, 4, 0x11223344u, 300);
  node = add_memset(raw, node, base + 8, 1, 0xABu, 100);
  node = add_memset(raw, node, base + 2048, 2, 0xBEEFu, 10, 5, 64);  // 2D: 5 rows, 64 apart
  add_memset(raw, node, base + 1200, 1, 0x7Eu, 1);

  EXPECT_EQ(memsets_to_kernels(graph), 4u);
  EXPECT_TRUE(nodes_of_type(raw, cudaGraphNodeTypeMemset).empty());
  EXPECT_EQ(nodes_of_type(raw, cudaGraphNodeTypeKernel).size(), 4u);
  std::size_t edges = 0;
  CB_CUDA_CHECK(cudaGraphGetEdges(raw, nullptr, nullptr, nullptr, &edges));
  EXPECT_EQ(edges, 3u);  // still one chain

  cudaGraphExec_t exec = nullptr;
  CB_CUDA_CHECK(cudaGraphInstantiate(&exec, raw, 0));
  const GraphExec owned(exec, 0);
  CB_CUDA_CHECK(cudaGraphLaunch(exec, nullptr));
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> got(kBytes);
  CB_CUDA_CHECK(cudaMemcpy(got.data(), base, kBytes, cudaMemcpyDeviceToHost));

  std::vector<unsigned char> expected(kBytes, 0);
  for (std::size_t i = 0; i < 300; ++i) write<std::uint32_t>(expected, 4 * i, 0x11223344u);
  for (std::size_t i = 0; i < 100; ++i) expected[8 + i] = 0xAB;
  for (std::size_t row = 0; row < 5; ++row) {
    for (std::size_t i = 0; i < 10; ++i)
      write<std::uint16_t>(expected, 2048 + 64 * row + 2 * i, 0xBEEF);
  }
  expected[1200] = 0x7E;
  EXPECT_EQ(got, expected);
}

TEST(GraphMemsets, TheKernelNodeRunsAtThePriorityOfTheKernelWaitingOnIt) {
  SKIP_WITHOUT_GPUS(1);
  ScopedDevice on(0, 0);
  int least = 0;
  int greatest = 0;
  CB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t raw_stream = nullptr;
  CB_CUDA_CHECK(cudaStreamCreateWithPriority(&raw_stream, cudaStreamNonBlocking, greatest));
  const DeviceHandle<cudaStream_t, StreamTraits> stream(raw_stream, 0);
  DeviceBuffer zeroed(0, 256);
  DeviceBuffer filled(0, 1024);

  CB_CUDA_CHECK(cudaStreamBeginCapture(raw_stream, cudaStreamCaptureModeThreadLocal));
  CB_CUDA_CHECK(cudaMemsetAsync(zeroed.get(), 0, zeroed.bytes(), raw_stream));
  const kernels::PatternParams pattern{
      1, 1, 0, 1, kernels::ElementType::float32, kernels::Reduction::sum};
  kernels::launch_fill(filled.get(), 256, pattern, 0, raw_stream);
  cudaGraph_t raw = nullptr;
  CB_CUDA_CHECK(cudaStreamEndCapture(raw_stream, &raw));
  const Graph graph(raw, 0);
  const std::vector<cudaGraphNode_t> fills = nodes_of_type(raw, cudaGraphNodeTypeKernel);
  ASSERT_EQ(fills.size(), 1u);

  EXPECT_EQ(memsets_to_kernels(graph), 1u);
  cudaGraphNode_t replacement = nullptr;
  std::size_t count = 1;
  CB_CUDA_CHECK(cudaGraphNodeGetDependencies(fills[0], &replacement, nullptr, &count));
  ASSERT_EQ(count, 1u);
  cudaGraphNodeType type{};
  CB_CUDA_CHECK(cudaGraphNodeGetType(replacement, &type));
  EXPECT_EQ(type, cudaGraphNodeTypeKernel);
  cudaLaunchAttributeValue waiting{};
  cudaLaunchAttributeValue taken{};
  CB_CUDA_CHECK(cudaGraphKernelNodeGetAttribute(fills[0], cudaLaunchAttributePriority, &waiting));
  CB_CUDA_CHECK(cudaGraphKernelNodeGetAttribute(replacement, cudaLaunchAttributePriority, &taken));
  EXPECT_EQ(waiting.priority, greatest);  // captured from the high-priority stream
  EXPECT_EQ(taken.priority, waiting.priority);
}

// copy_engine's flags are stream memory operations: captured, they become batch memory-operation
// nodes, which the runtime API has no node type for. The rewrite passes over them.
TEST(GraphMemsets, StreamMemoryOperationNodesAreLeftAsTheyAre) {
  SKIP_WITHOUT_GPUS(1);
  ScopedDevice on(0, 0);
  const Stream stream(0);
  DeviceBuffer flag(0, sizeof(std::uint32_t));
  DeviceBuffer zeroed(0, 512);
  CB_CUDA_CHECK(cudaMemset(flag.get(), 0, flag.bytes()));
  CB_CUDA_CHECK(cudaMemset(zeroed.get(), 0xFF, zeroed.bytes()));
  CB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  enqueue_flag_writes(stream.get(), {flag.as<std::uint32_t>()}, 7, 0);
  CB_CUDA_CHECK(cudaMemsetAsync(zeroed.get(), 0, zeroed.bytes(), stream.get()));
  cudaGraph_t raw = nullptr;
  CB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &raw));
  const Graph graph(raw, 0);

  EXPECT_EQ(memsets_to_kernels(graph), 1u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // no runtime error left behind
  cudaGraphExec_t exec = nullptr;
  CB_CUDA_CHECK(cudaGraphInstantiate(&exec, raw, 0));
  const GraphExec owned(exec, 0);
  CB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::uint32_t flag_value = 0;
  CB_CUDA_CHECK(cudaMemcpy(&flag_value, flag.get(), sizeof flag_value, cudaMemcpyDeviceToHost));
  EXPECT_EQ(flag_value, 7u);
  std::vector<unsigned char> got(zeroed.bytes());
  CB_CUDA_CHECK(cudaMemcpy(got.data(), zeroed.get(), got.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, std::vector<unsigned char>(got.size(), 0));
}

}  // namespace
}  // namespace collbench::testing
