// The watcher thread of ExitDeadline.
#include "launch/exit_deadline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/errors.hpp"

namespace collbench {

ExitDeadline::ExitDeadline(double seconds, std::string message) {
  if (seconds <= 0) return;
  seconds = std::min(seconds, kMaxTimeoutS);  // wait_for's nanoseconds must not overflow
  watcher_ = std::thread([this, seconds, message = std::move(message)] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cancelled_.wait_for(lock, std::chrono::duration<double>(seconds),
                            [this] { return done_; })) {
      return;
    }
    std::fprintf(stderr, "collbench: error: %s\n", message.c_str());
    std::fflush(stderr);
    // The blocked call holds the process: no destructor can run past it, so leave at once.
    std::_Exit(1);
  });
}

ExitDeadline::~ExitDeadline() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cancelled_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

}  // namespace collbench
