// Finding the target and keeping it on the crowded core: a sweep over /proc every 1 ms until it
// appears (the tool may start any moment after this program), then every 10 ms until the end,
// because threads come later (NCCL's) and libraries reset their affinity.
#include "cpu_starve.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "contend_errors.hpp"
#include "proc_scan.hpp"
#include "thread_pinning.hpp"

namespace collbench::contend {
namespace {

constexpr std::chrono::milliseconds kWaitPoll{1};
constexpr std::chrono::milliseconds kKeepPoll{10};

struct Sweep {
  std::vector<pid_t> processes;  // where target threads were found
  int threads = 0;               // target threads on the core after this sweep
};

// Pins every target thread to `core`; with `lower`, also lowers it to nice 19 (a thread gone
// meanwhile is no error).
Sweep pin_target(const TargetSpec& target, int core, bool lower) {
  Sweep sweep;
  for (const pid_t pid : find_target_processes(target)) {
    int pinned = 0;
    for (const pid_t tid : target_threads(pid, target)) {
      if (!pin_thread(tid, core)) continue;
      ++pinned;
      if (lower && setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19) != 0 && errno != ESRCH)
        throw LoadError(
            fmt::format("setpriority(thread {}, nice 19): {}", tid, std::strerror(errno)));
    }
    if (pinned > 0) sweep.processes.push_back(pid);
    sweep.threads += pinned;
  }
  return sweep;
}

// The first sweep that pinned a target thread; an empty one when wait_s passed or a stop came.
Sweep wait_for_target(const TargetSpec& target, int core, bool lower, double wait_s,
                      const LoadSession& session) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(wait_s));
  while (!session.stopping() && std::chrono::steady_clock::now() < deadline) {
    Sweep sweep = pin_target(target, core, lower);
    if (sweep.threads > 0) return sweep;
    std::this_thread::sleep_for(kWaitPoll);
  }
  return {};
}

std::string pid_list(const std::vector<pid_t>& pids) {
  std::string list;
  for (const pid_t pid : pids) list += (list.empty() ? "" : ", ") + std::to_string(pid);
  return list;
}

}  // namespace

void run_cpu_starve(const CpuStarveOptions& options, LoadSession& session) {
  const int core = choose_core(options.core);
  const TargetSpec target{options.target_rank, options.target_process};
  keep_calling_thread_off(core);
  BusyThreads busy(options.busy_threads, core, options.realtime);
  std::fprintf(stderr, "collbench_contend: waiting: for %s, up to %g s\n",
               describe_target(target).c_str(), options.wait_s);
  std::fflush(stderr);
  const Sweep first = wait_for_target(target, core, options.lower_target, options.wait_s, session);
  if (first.threads == 0) {
    if (session.stopping()) return;
    throw LoadError(
        fmt::format("--cpu-starve --target-rank {}: nothing to pin within {} s "
                    "(waited for {})",
                    options.target_rank, options.wait_s, describe_target(target)));
  }
  session.announce(
      fmt::format("{} {}busy threads on core {} crowding {} (pid {}; threads pinned so far: {})",
                  options.busy_threads, options.realtime ? "real-time " : "", core,
                  describe_target(target), pid_list(first.processes), first.threads));
  int most_threads = first.threads;
  while (!session.stopping()) {
    std::this_thread::sleep_for(kKeepPoll);
    most_threads = std::max(most_threads, pin_target(target, core, options.lower_target).threads);
  }
  session.report(fmt::format("{} on core {} for {:.1f} s (at most {} target threads at once)",
                             describe_target(target), core, session.loaded_s(), most_threads));
}

}  // namespace collbench::contend
