// Reading a captured CUDA graph's nodes: the list, and each node's type as the driver knows it.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <vector>

namespace collbench {

std::vector<cudaGraphNode_t> nodes_of(cudaGraph_t graph);

// The driver's node type: the runtime's cudaGraphNodeGetType fails with cudaErrorUnknown on the
// batch memory-operation nodes that captured stream memory operations become (copy_engine's
// flags, stream_memops.hpp), which it has no type for. `device` names the GPU in errors.
CUgraphNodeType node_type(cudaGraphNode_t node, int device);

}  // namespace collbench
