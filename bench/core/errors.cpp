// Formats CUDA/NCCL failures as one line: call, place, message, rank and GPU.
#include "core/errors.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace collbench {
namespace {

thread_local int thread_rank = -1;

std::string where(const char* file, int line) {
  int device = -1;
  cudaGetDevice(&device);  // best effort: the context may be broken already
  std::string place = fmt::format("{}:{}", file, line);
  if (thread_rank >= 0) place += fmt::format(", rank {}", thread_rank);
  if (device >= 0) place += fmt::format(", GPU {}", device);
  return place;
}

}  // namespace

std::string escape_control_characters(std::string_view text) {
  std::string escaped;
  for (unsigned char c : text) {
    if (c == '\n') {
      escaped += "\\n";
    } else if (c == '\r') {
      escaped += "\\r";
    } else if (c == '\t') {
      escaped += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      escaped += fmt::format("\\x{:02x}", c);
    } else {
      escaped += static_cast<char>(c);
    }
  }
  return escaped;
}

UsageError::UsageError(const std::string& message)
    : std::runtime_error(escape_control_characters(message)) {}

std::string shown_value(std::string_view value) {
  if (value.size() <= kShownValueChars) return escape_control_characters(value);
  return fmt::format("{}… ({} characters)",
                     escape_control_characters(value.substr(0, kShownValueChars)), value.size());
}

int current_rank() {
  return thread_rank;
}
void set_current_rank(int rank) {
  thread_rank = rank;
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const bool oom = status == cudaErrorMemoryAllocation;
  if (oom) cudaGetLastError();  // an allocation failure is not sticky: clear it so work can go on
  throw GpuError(fmt::format("{} failed ({}): {} [{}]", call, cudaGetErrorName(status),
                             cudaGetErrorString(status), where(file, line)),
                 oom);
}

void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line) {
  const char* last = ncclGetLastError(nullptr);
  const std::string message = last ? last : "";
  std::string detail = message.empty() ? std::string() : fmt::format(" (NCCL: {})", message);
  throw GpuError(fmt::format("{} failed: {}{} [{}]", call, ncclGetErrorString(status), detail,
                             where(file, line)),
                 false, status, message);
}

void report_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  std::fprintf(stderr, "collbench: warning: %s failed during cleanup: %s [%s]\n", call,
               cudaGetErrorString(status), where(file, line).c_str());
}

}  // namespace collbench
