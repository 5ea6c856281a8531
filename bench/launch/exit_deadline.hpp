// A deadline for a blocking call that has no timeout of its own (ncclCommInitRank waits for every
// process of the world, forever when one never comes): past the deadline the process prints one
// line and exits with status 1. Used only before anything is measured, so nothing is lost.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace collbench {

class ExitDeadline {
 public:
  // Past `seconds` (> 0; 0 or less: no deadline) without the object being destroyed, prints
  // "collbench: error: <message>" to stderr and ends the process with status 1.
  ExitDeadline(double seconds, std::string message);
  ~ExitDeadline();  // the call returned in time: the deadline is cancelled
  ExitDeadline(const ExitDeadline&) = delete;
  ExitDeadline& operator=(const ExitDeadline&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cancelled_;
  bool done_ = false;
  std::thread watcher_;
};

}  // namespace collbench
