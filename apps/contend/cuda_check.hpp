// Checks of CUDA runtime calls that name the call, its GPU and file:line: a failure throws
// LoadError, or, in a destructor, prints one line and goes on.
#pragma once

#include <cuda_runtime.h>

namespace collbench::contend {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, int gpu, const char* file,
                                   int line);
void report_cuda_error(cudaError_t status, const char* call, int gpu, const char* file,
                       int line) noexcept;

}  // namespace collbench::contend

#define CONTEND_CUDA(call, gpu)                                                                  \
  do {                                                                                           \
    const cudaError_t contend_status_ = (call);                                                  \
    if (contend_status_ != cudaSuccess)                                                          \
      ::collbench::contend::throw_cuda_error(contend_status_, #call, (gpu), __FILE__, __LINE__); \
  } while (0)

#define CONTEND_CUDA_NOTHROW(call, gpu)                                                           \
  do {                                                                                            \
    const cudaError_t contend_status_ = (call);                                                   \
    if (contend_status_ != cudaSuccess)                                                           \
      ::collbench::contend::report_cuda_error(contend_status_, #call, (gpu), __FILE__, __LINE__); \
  } while (0)
