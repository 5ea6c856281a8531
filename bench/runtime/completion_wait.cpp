// The polled wait for streams and events: the queries, the checks between polls, the back-off.
#include "runtime/completion_wait.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "core/interrupt.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"

namespace collbench {
namespace {

// About a few milliseconds of yields: what a small case's wait takes, answered at once.
constexpr int kSpinPolls = 2000;
constexpr std::chrono::microseconds kPollSleep{100};
// 1e9 s (about 30 years) in nanoseconds still fits the steady clock's 64 bits after its epoch.
constexpr double kLongestWaitS = 1e9;

bool has_finished(const CompletionTarget& target, std::string_view what) {
  const bool is_stream = std::holds_alternative<cudaStream_t>(target.work);
  const cudaError_t status = is_stream ? cudaStreamQuery(std::get<cudaStream_t>(target.work))
                                       : cudaEventQuery(std::get<cudaEvent_t>(target.work));
  if (status == cudaSuccess) return true;
  if (status == cudaErrorNotReady) return false;
  ScopedDevice on(target.device, target.rank);
  const std::string call =
      fmt::format("{} ({})", is_stream ? "cudaStreamQuery" : "cudaEventQuery", what);
  throw_cuda_error(status, call.c_str(), __FILE__, __LINE__);
}

}  // namespace

CompletionTarget stream_target(const RankContext& rank) {
  return {rank.device, rank.rank, rank.stream, rank.comm};
}

std::vector<CompletionTarget> stream_targets(const std::vector<RankContext>& ranks) {
  std::vector<CompletionTarget> targets;
  for (const RankContext& rank : ranks) targets.push_back(stream_target(rank));
  return targets;
}

WaitDeadline WaitDeadline::after(double timeout_s) {
  const std::chrono::duration<double> timeout(std::min(timeout_s, kLongestWaitS));
  return {std::chrono::steady_clock::now() +
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout),
          timeout_s};
}

std::chrono::microseconds pause_after_poll(int polls) {
  return polls < kSpinPolls ? std::chrono::microseconds(0) : kPollSleep;
}

void poll_until_finished(std::size_t targets, const std::function<bool(std::size_t)>& finished,
                         const std::function<void()>& between_polls, const WaitDeadline& deadline,
                         std::string_view what) {
  std::vector<bool> done(targets);
  for (int polls = 0;; ++polls) {
    for (std::size_t i = 0; i < targets; ++i) done[i] = finished(i);
    if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) return;
    throw_if_interrupted();
    between_polls();
    if (std::chrono::steady_clock::now() > deadline.at) {
      throw CompletionTimeout(
          fmt::format("{} did not finish within {:g} s", what, deadline.timeout_s), done);
    }
    const std::chrono::microseconds pause = pause_after_poll(polls);
    if (pause.count() == 0) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pause);
    }
  }
}

void wait_for_completion(const std::vector<CompletionTarget>& targets, const WaitDeadline& deadline,
                         std::string_view what, const std::function<void()>& check_health) {
  poll_until_finished(
      targets.size(), [&](std::size_t i) { return has_finished(targets[i], what); },
      [&] {
        for (const CompletionTarget& target : targets) {
          check_nccl_async_error(target.comm, target.device, target.rank);
        }
        if (check_health) check_health();
      },
      deadline, what);
}

}  // namespace collbench
