// Error types and the checks that turn a failed CUDA or NCCL call into an exception naming the
// call, file:line, the library's message and the rank/GPU it happened on.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace collbench {

// A bad command line or configuration: reported as one line, exit status 2. Control characters
// in the message (a bad value may hold a line break) are written as escapes, keeping it one line.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message);
};

// A user's value as an error message shows it: whole up to kShownValueChars characters, else its
// start and its length ("xxxx… (100000 characters)"), so that a pasted file cannot flood the
// one line. Control characters are escaped, as UsageError does.
inline constexpr std::size_t kShownValueChars = 60;
std::string shown_value(std::string_view value);
// `text` with its control characters written as escapes (a line break as \n): one line.
std::string escape_control_characters(std::string_view text);

// A CUDA or NCCL call failed. `out_of_memory` lets the runner record status oom and go on; a
// failed NCCL call also carries its result and NCCL's own message (ncclGetLastError), so that the
// runner can tell NCCL refusing a case (ncclInvalidUsage) from a failure.
class GpuError : public std::runtime_error {
 public:
  GpuError(const std::string& message, bool out_of_memory, ncclResult_t nccl_status = ncclSuccess,
           std::string nccl_message = {})
      : std::runtime_error(message),
        out_of_memory_(out_of_memory),
        nccl_status_(nccl_status),
        nccl_message_(std::move(nccl_message)) {}
  bool out_of_memory() const { return out_of_memory_; }
  ncclResult_t nccl_status() const { return nccl_status_; }  // ncclSuccess: not an NCCL call
  const std::string& nccl_message() const { return nccl_message_; }

 private:
  bool out_of_memory_;
  ncclResult_t nccl_status_;
  std::string nccl_message_;
};

// Work did not finish within its deadline (a case, a probe, a gather between processes); the
// thrower has aborted every communicator that could still be waiting.
class CaseTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The longest --timeout: deadlines this far ahead still fit the clocks' 64-bit nanoseconds.
inline constexpr double kMaxTimeoutS = 1e6;

// The rank whose work the calling thread is doing, named in error messages (-1: none).
int current_rank();
void set_current_rank(int rank);

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);
[[noreturn]] void throw_nccl_error(ncclResult_t status, const char* call, const char* file,
                                   int line);
// For destructors, which must not throw: prints the failure to stderr instead.
void report_cuda_error(cudaError_t status, const char* call, const char* file, int line);

}  // namespace collbench

// Checks a CUDA runtime call; throws GpuError carrying the call text on failure.
#define CB_CUDA_CHECK(call)                                                 \
  do {                                                                      \
    const cudaError_t cb_status_ = (call);                                  \
    if (cb_status_ != cudaSuccess)                                          \
      ::collbench::throw_cuda_error(cb_status_, #call, __FILE__, __LINE__); \
  } while (0)

// Checks a CUDA call in a destructor: reports, never throws.
#define CB_CUDA_CHECK_NOTHROW(call)                                          \
  do {                                                                       \
    const cudaError_t cb_status_ = (call);                                   \
    if (cb_status_ != cudaSuccess)                                           \
      ::collbench::report_cuda_error(cb_status_, #call, __FILE__, __LINE__); \
  } while (0)

// Checks an NCCL call; throws GpuError with NCCL's message and last error on failure.
#define CB_NCCL_CHECK(call)                                                 \
  do {                                                                      \
    const ncclResult_t cb_status_ = (call);                                 \
    if (cb_status_ != ncclSuccess && cb_status_ != ncclInProgress)          \
      ::collbench::throw_nccl_error(cb_status_, #call, __FILE__, __LINE__); \
  } while (0)

// Checks that the last kernel launch was accepted.
#define CB_CHECK_LAUNCH() CB_CUDA_CHECK(cudaGetLastError())
