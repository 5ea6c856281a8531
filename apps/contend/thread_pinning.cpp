// Affinity through sched_setaffinity (any thread id, ours or another process's) and
// pthread_setaffinity_np (our own std::threads).
#include "thread_pinning.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "contend_errors.hpp"

namespace collbench::contend {
namespace {

cpu_set_t one_core(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  return set;
}

cpu_set_t usable_set() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    throw LoadError(fmt::format("sched_getaffinity(this process): {}", std::strerror(errno)));
  return set;
}

// "0-15,32-47": the cores of a set as ranges.
std::string usable_list(const cpu_set_t& set) {
  std::string list;
  for (int core = 0; core < CPU_SETSIZE; ++core) {
    if (!CPU_ISSET(core, &set)) continue;
    int last = core;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    list += (list.empty() ? "" : ",") + std::to_string(core);
    if (last > core) list += "-" + std::to_string(last);
    core = last;
  }
  return list;
}

void spin_until(const std::atomic<bool>& quit) {
  while (!quit.load(std::memory_order_relaxed)) {
  }
}

// 8 ms on the core, 2 ms off: under SCHED_FIFO nothing of ordinary priority runs on the core but
// in the gaps.
void spin_in_bursts(const std::atomic<bool>& quit) {
  using Clock = std::chrono::steady_clock;
  while (!quit.load(std::memory_order_relaxed)) {
    const Clock::time_point until = Clock::now() + std::chrono::milliseconds(8);
    while (Clock::now() < until && !quit.load(std::memory_order_relaxed)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

int choose_core(const std::optional<int>& requested) {
  const cpu_set_t usable = usable_set();
  if (requested) {
    if (*requested >= CPU_SETSIZE || !CPU_ISSET(*requested, &usable))
      throw UsageError(fmt::format("--core {}: not a core this process may use ({})", *requested,
                                   usable_list(usable)));
    return *requested;
  }
  for (int core = CPU_SETSIZE - 1; core >= 0; --core) {
    if (CPU_ISSET(core, &usable)) return core;
  }
  throw LoadError("sched_getaffinity(this process): no usable core");
}

void keep_calling_thread_off(int core) {
  cpu_set_t others = usable_set();
  CPU_CLR(core, &others);
  if (CPU_COUNT(&others) == 0) return;  // one core only: share it
  if (sched_setaffinity(0, sizeof others, &others) != 0)
    throw LoadError(fmt::format("sched_setaffinity(this thread, all cores but {}): {}", core,
                                std::strerror(errno)));
}

bool pin_thread(pid_t tid, int core) {
  cpu_set_t current;
  CPU_ZERO(&current);
  if (sched_getaffinity(tid, sizeof current, &current) != 0) {
    if (errno == ESRCH) return false;
    throw LoadError(fmt::format("sched_getaffinity(thread {}): {}", tid, std::strerror(errno)));
  }
  const cpu_set_t wanted = one_core(core);
  if (CPU_EQUAL(&current, &wanted)) return true;
  if (sched_setaffinity(tid, sizeof wanted, &wanted) != 0) {
    if (errno == ESRCH) return false;
    throw LoadError(
        fmt::format("sched_setaffinity(thread {}, core {}): {}", tid, core, std::strerror(errno)));
  }
  return true;
}

BusyThreads::BusyThreads(int count, int core, bool realtime) {
  const cpu_set_t wanted = one_core(core);
  try {
    for (int i = 0; i < count; ++i) {
      threads_.emplace_back(realtime ? spin_in_bursts : spin_until, std::cref(quit_));
      const int status =
          pthread_setaffinity_np(threads_.back().native_handle(), sizeof wanted, &wanted);
      if (status != 0)
        throw LoadError(fmt::format("pthread_setaffinity_np(busy thread {}, core {}): {}", i, core,
                                    std::strerror(status)));
      const sched_param priority{1};
      const int policy_status =
          realtime ? pthread_setschedparam(threads_.back().native_handle(), SCHED_FIFO, &priority)
                   : 0;
      if (policy_status != 0)
        throw LoadError(fmt::format("pthread_setschedparam(busy thread {}, SCHED_FIFO 1): {}", i,
                                    std::strerror(policy_status)));
      // A name in top and /proc; failing to set it changes nothing.
      (void)pthread_setname_np(threads_.back().native_handle(), "contend-busy");
    }
  } catch (...) {
    stop();
    throw;
  }
}

BusyThreads::~BusyThreads() {
  stop();
}

void BusyThreads::stop() noexcept {
  quit_.store(true, std::memory_order_relaxed);
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

}  // namespace collbench::contend
