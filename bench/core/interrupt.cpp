// The signal flag and its handlers.
#include "core/interrupt.hpp"

#include <csignal>
#include <string>

namespace collbench {
namespace {
volatile std::sig_atomic_t received_signal = 0;
extern "C" void record_signal(int signal) {
  received_signal = signal;
}
}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGINT, record_signal);
  std::signal(SIGTERM, record_signal);
}

int interrupt_signal() {
  return received_signal;
}

void throw_if_interrupted() {
  if (const int signal = interrupt_signal()) throw Interrupted(signal);
}

Interrupted::Interrupted(int signal)
    : std::runtime_error(std::string("interrupted by ") +
                         (signal == SIGINT ? "SIGINT" : "SIGTERM")),
      signal_(signal) {}

}  // namespace collbench
