// The one wait for GPU work that may never finish: the streams or events of a set of ranks,
// polled (never blocking) so that a peer that never comes ends in an error rather than a hang.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/algorithm.hpp"
#include "core/errors.hpp"

namespace collbench {

// What one rank's wait watches: its stream until it is idle, or an event until the work before
// it has completed; and the communicator whose asynchronous error ends the wait (null: none).
struct CompletionTarget {
  int device;
  int rank;  // named, with the device, in errors
  std::variant<cudaStream_t, cudaEvent_t> work;
  ncclComm_t comm = nullptr;
};

// `rank`'s stream, watching its communicator.
CompletionTarget stream_target(const RankContext& rank);
std::vector<CompletionTarget> stream_targets(const std::vector<RankContext>& ranks);

// When a wait gives up: at `at`, `timeout_s` after what it waits for began (the message names it).
struct WaitDeadline {
  std::chrono::steady_clock::time_point at;
  double timeout_s;
  // From now; timeouts above 1e9 s (no deadline at all) wait 1e9 s, which the clock still holds.
  static WaitDeadline after(double timeout_s);
};

// The deadline came first: "WHAT did not finish within T s", and which targets had finished
// (index-aligned with the targets waited for).
class CompletionTimeout : public CaseTimeout {
 public:
  CompletionTimeout(const std::string& message, std::vector<bool> done)
      : CaseTimeout(message), done_(std::move(done)) {}
  const std::vector<bool>& done() const { return done_; }

 private:
  std::vector<bool> done_;
};

// Waits until every target's work has completed. Between polls of unfinished work: throws
// Interrupted on SIGINT/SIGTERM, GpuError for an NCCL asynchronous error of a target's
// communicator, whatever `check_health` throws (when given), and CompletionTimeout past
// `deadline`. A failed query throws GpuError naming the call, `what`, the rank and the GPU.
void wait_for_completion(const std::vector<CompletionTarget>& targets, const WaitDeadline& deadline,
                         std::string_view what, const std::function<void()>& check_health = {});

// The loop of wait_for_completion apart from CUDA: polls `finished(i)` for every target i of
// `targets` (each poll asks all of them), and until all have finished, between polls, checks
// for a signal, calls `between_polls` and the deadline, then pauses (pause_after_poll).
void poll_until_finished(std::size_t targets, const std::function<bool(std::size_t)>& finished,
                         const std::function<void()>& between_polls, const WaitDeadline& deadline,
                         std::string_view what);

// How long to pause after poll `polls` (from 0) found work still running: zero, a yield only,
// for the first polls (short work ends within microseconds, and a sleep would add tens of them),
// then a short sleep, so that long work does not hold a core.
std::chrono::microseconds pause_after_poll(int polls);

}  // namespace collbench
