// The text of a failed CUDA call: "cudaMalloc(...) on GPU 2: out of memory
// (cudaErrorMemoryAllocation) at cuda_owners.cpp:30".
#include "cuda_check.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "contend_errors.hpp"

namespace collbench::contend {
namespace {

std::string failure_text(cudaError_t status, const char* call, int gpu, const char* file,
                         int line) {
  const char* slash = std::strrchr(file, '/');
  return fmt::format("{} on GPU {}: {} ({}) at {}:{}", call, gpu, cudaGetErrorString(status),
                     cudaGetErrorName(status), slash ? slash + 1 : file, line);
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, int gpu, const char* file, int line) {
  throw LoadError(failure_text(status, call, gpu, file, line));
}

void report_cuda_error(cudaError_t status, const char* call, int gpu, const char* file,
                       int line) noexcept {
  try {
    std::fprintf(stderr, "collbench_contend: warning: %s\n",
                 failure_text(status, call, gpu, file, line).c_str());
  } catch (...) {
    // Formatting ran out of memory: nothing better to say from a destructor.
  }
}

}  // namespace collbench::contend
