// Memset nodes to kernel nodes (graph_memsets.hpp).
#include "runtime/graph_memsets.hpp"

#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/errors.hpp"
#include "memset_kernel.hpp"
#include "runtime/driver_entry_point.hpp"

namespace collbench {
namespace {

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t graph) {
  std::size_t count = 0;
  CB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CB_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  nodes.resize(count);
  return nodes;
}

struct Edges {
  std::vector<cudaGraphNode_t> nodes;
  std::vector<cudaGraphEdgeData> data;
};

Edges dependencies_of(cudaGraphNode_t node) {
  std::size_t count = 0;
  CB_CUDA_CHECK(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &count));
  Edges edges{std::vector<cudaGraphNode_t>(count), std::vector<cudaGraphEdgeData>(count)};
  CB_CUDA_CHECK(cudaGraphNodeGetDependencies(node, edges.nodes.data(), edges.data.data(), &count));
  return edges;
}

Edges dependents_of(cudaGraphNode_t node) {
  std::size_t count = 0;
  CB_CUDA_CHECK(cudaGraphNodeGetDependentNodes(node, nullptr, nullptr, &count));
  Edges edges{std::vector<cudaGraphNode_t>(count), std::vector<cudaGraphEdgeData>(count)};
  CB_CUDA_CHECK(
      cudaGraphNodeGetDependentNodes(node, edges.nodes.data(), edges.data.data(), &count));
  return edges;
}

bool plain(const std::vector<cudaGraphEdgeData>& edges) {
  return std::all_of(edges.begin(), edges.end(), [](const cudaGraphEdgeData& edge) {
    return edge.from_port == 0 && edge.to_port == 0 && edge.type == cudaGraphDependencyTypeDefault;
  });
}

bool on_device(const void* pointer, int device) {
  cudaPointerAttributes attributes{};
  CB_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pointer));
  return attributes.type == cudaMemoryTypeDevice && attributes.device == device;
}

// The driver's node type: the runtime's cudaGraphNodeGetType fails with cudaErrorUnknown on the
// batch memory-operation nodes that captured stream memory operations become (copy_engine's
// flags, stream_memops.hpp), which it has no type for.
CUgraphNodeType type_of(cudaGraphNode_t node, int device) {
  using GetTypeFunction = CUresult (*)(CUgraphNode node, CUgraphNodeType * type);
  static const auto get_type = driver_function<GetTypeFunction>("cuGraphNodeGetType");
  CUgraphNodeType type{};
  const CUresult status = get_type(node, &type);
  if (status != CUDA_SUCCESS) {
    throw GpuError(fmt::format("cuGraphNodeGetType({}) failed with CUresult {} (GPU {})",
                               static_cast<const void*>(node), static_cast<int>(status), device),
                   false);
  }
  return type;
}

// The priority the replacement runs at: that of the most urgent kernel waiting on it (a lower
// number is a higher priority), or none when no kernel waits on it.
void take_priority_of(cudaGraphNode_t replacement, const std::vector<cudaGraphNode_t>& waiting,
                      int device) {
  bool found = false;
  int priority = 0;
  for (cudaGraphNode_t node : waiting) {
    if (type_of(node, device) != CU_GRAPH_NODE_TYPE_KERNEL) continue;
    cudaLaunchAttributeValue value{};
    CB_CUDA_CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &value));
    priority = found ? std::min(priority, value.priority) : value.priority;
    found = true;
  }
  if (!found) return;
  cudaLaunchAttributeValue value{};
  value.priority = priority;
  CB_CUDA_CHECK(cudaGraphKernelNodeSetAttribute(replacement, cudaLaunchAttributePriority, &value));
}

}  // namespace

std::size_t memsets_to_kernels(const Graph& graph) {
  ScopedDevice on(graph.device());
  std::size_t replaced = 0;
  for (cudaGraphNode_t node : nodes_of(graph.get())) {
    if (type_of(node, graph.device()) != CU_GRAPH_NODE_TYPE_MEMSET) continue;
    cudaMemsetParams memset{};
    CB_CUDA_CHECK(cudaGraphMemsetNodeGetParams(node, &memset));
    const Edges before = dependencies_of(node);
    const Edges after = dependents_of(node);
    if (!plain(before.data) || !plain(after.data) || !on_device(memset.dst, graph.device()))
      continue;
    cudaGraphNode_t kernel = nullptr;
    CB_CUDA_CHECK(kernels::add_memset_kernel_node(&kernel, graph.get(), before.nodes.data(),
                                                  nullptr, before.nodes.size(), memset));
    const std::vector<cudaGraphNode_t> from(after.nodes.size(), kernel);
    if (!after.nodes.empty()) {
      CB_CUDA_CHECK(cudaGraphAddDependencies(graph.get(), from.data(), after.nodes.data(), nullptr,
                                             after.nodes.size()));
    }
    take_priority_of(kernel, after.nodes, graph.device());
    CB_CUDA_CHECK(cudaGraphDestroyNode(node));  // and its edges
    ++replaced;
  }
  return replaced;
}

}  // namespace collbench
