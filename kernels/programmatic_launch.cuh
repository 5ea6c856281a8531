// Programmatic dependent launch (compute capability 9.0): a kernel launched with it may be
// scheduled while the stream's previous kernel still runs, once every block of that kernel has
// allowed it, and waits inside for that kernel's end. The launch overhead between two back-to-back
// kernels then overlaps the first one's work.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace collbench::kernels {

// First thing in a kernel that may be launched programmatically: let the stream's next kernel be
// scheduled, then wait until the previous kernel has finished and its writes are visible. Nothing
// before this call may read or write memory another kernel of the stream touches. Without a
// programmatic launch both instructions do nothing.
__device__ inline void programmatic_launch_prologue() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// <<<blocks, threads, 0, stream>>>(args...), with programmatic stream serialization allowed when
// `programmatic` is set or the stream is being captured: the graph's edge between two such
// kernels is then programmatic too, and overlaps the next node's launch with this one's end. The
// kernel must begin with programmatic_launch_prologue(). Like <<<>>>, it leaves a failure for
// cudaGetLastError, where the caller's launch check finds it.
template <typename... Params, typename... Args>
void launch_kernel(void (*kernel)(Params...), int blocks, int threads, cudaStream_t stream,
                   bool programmatic, Args&&... args) {
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess) return;
  if (!programmatic && capturing == cudaStreamCaptureStatusNone) {
    kernel<<<blocks, threads, 0, stream>>>(std::forward<Args>(args)...);
    return;
  }
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace collbench::kernels
