// A captured graph's nodes and their driver types (graph_nodes.hpp).
#include "graph_nodes.hpp"

#include <fmt/format.h>

#include "driver_entry_point.hpp"
#include "errors.hpp"

namespace collbench {

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t graph) {
  std::size_t count = 0;
  CB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CB_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  nodes.resize(count);
  return nodes;
}

CUgraphNodeType node_type(cudaGraphNode_t node, int device) {
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

}  // namespace collbench
