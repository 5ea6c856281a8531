// A memset as a kernel node of a CUDA graph (memset_kernel.cu). A captured cudaMemsetAsync
// becomes a memset node, and the kernel that waits on it starts several microseconds after it,
// more while the copy engines move peer data (the training step's trace: 8-15 µs before each
// weight-gradient GEMM whose cuBLASLt call zeroes a few bytes first). A kernel node writing the
// same bytes hands over to the next kernel as any kernel does.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace collbench::kernels {

// Adds to `graph`, after `dependencies` (with their edge data; null for default edges), a kernel
// node that writes what `memset` describes: `height` rows of `width` elements of 1, 2 or 4 bytes
// (the low bytes of `value`), rows `pitch` bytes apart. Returns cudaErrorInvalidValue for another
// element size, else cudaGraphAddNode's status.
cudaError_t add_memset_kernel_node(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* dependencies,
                                   const cudaGraphEdgeData* edges, std::size_t count,
                                   const cudaMemsetParams& memset);

}  // namespace collbench::kernels
