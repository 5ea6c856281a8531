// The memset kernel node (memset_kernel.hpp).
#include <algorithm>
#include <cstdint>

#include "memset_kernel.hpp"

namespace collbench::kernels {
namespace {

struct MemsetArgs {
  char* rows;
  std::size_t pitch;
  std::size_t width;
  std::size_t elements;  // width * height
  unsigned value;
};

template <typename Element>
__global__ void memset_kernel(MemsetArgs args) {
  const Element value = static_cast<Element>(args.value);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < args.elements; i += stride) {
    Element* row = reinterpret_cast<Element*>(args.rows + (i / args.width) * args.pitch);
    row[i % args.width] = value;
  }
}

void* kernel_for(unsigned element_size) {
  switch (element_size) {
    case 1:
      return reinterpret_cast<void*>(&memset_kernel<std::uint8_t>);
    case 2:
      return reinterpret_cast<void*>(&memset_kernel<std::uint16_t>);
    case 4:
      return reinterpret_cast<void*>(&memset_kernel<std::uint32_t>);
    default:
      return nullptr;
  }
}

constexpr unsigned kThreads = 256;
constexpr std::size_t kMaxBlocks = 1024;  // grid-stride beyond: these memsets are small

}  // namespace

cudaError_t add_memset_kernel_node(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies,
                                   const cudaGraphEdgeData* edges, std::size_t count,
                                   const cudaMemsetParams& memset) {
  void* kernel = kernel_for(memset.elementSize);
  if (kernel == nullptr) return cudaErrorInvalidValue;
  MemsetArgs args{static_cast<char*>(memset.dst), memset.pitch, memset.width,
                  memset.width * memset.height, memset.value};
  void* arguments[] = {&args};
  const std::size_t blocks =
      std::clamp<std::size_t>((args.elements + kThreads - 1) / kThreads, 1, kMaxBlocks);
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeKernel;
  params.kernel.func = kernel;
  params.kernel.gridDim = dim3(static_cast<unsigned>(blocks));
  params.kernel.blockDim = dim3(kThreads);
  params.kernel.kernelParams = arguments;  // copied into the node
  return cudaGraphAddNode(node, graph, dependencies, edges, count, &params);
}

}  // namespace collbench::kernels
