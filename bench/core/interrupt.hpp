// SIGINT/SIGTERM handling: the handler only records the signal; the runner's wait loop notices
// it, abandons the case, and the sweep ends with exit status 128 + signal.
#pragma once

#include <stdexcept>

namespace collbench {

void install_interrupt_handlers();
// The signal received (SIGINT, SIGTERM) or 0.
int interrupt_signal();
// Throws Interrupted when a signal has been received: between the phases of a run (metadata,
// joining, planning, making communicators), each of which may take a second or more.
void throw_if_interrupted();

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

}  // namespace collbench
