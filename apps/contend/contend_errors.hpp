// The errors collbench_contend reports, each mapped to its exit status by main: bad input (2),
// no GPU (4), and a failed call naming itself and its GPU or core (1).
#pragma once

#include <stdexcept>
#include <string>

namespace collbench::contend {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoGpu = 4;

// A bad command line: one line naming the bad value, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No CUDA GPU is visible (or no driver): exit status 4, as collbench's other binaries.
class NoGpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A CUDA, cuBLAS or system call failed, or the load could not be set up: exit status 1.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace collbench::contend
