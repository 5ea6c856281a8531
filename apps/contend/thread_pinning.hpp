// Threads on one core: choosing the core, busy threads pinned to it, the calling thread kept off
// it, and another process's threads pinned to it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

namespace collbench::contend {

// The core to crowd: `requested`, or the highest-numbered core this process may run on. Throws
// UsageError "--core C: ..." when it may not run there.
int choose_core(const std::optional<int>& requested);

// Moves the calling thread to every usable core but `core` (if there is another), so that it
// keeps finding and pinning the target promptly while the core is crowded.
void keep_calling_thread_off(int core);

// Pins thread `tid` (of any process) to `core` unless it is pinned there already. Returns false
// when the thread has gone; throws LoadError naming the thread when the kernel refuses.
bool pin_thread(pid_t tid, int core);

// `count` threads spinning on `core` until destroyed.
class BusyThreads {
 public:
  // `count` threads spinning on `core`; with `realtime`, SCHED_FIFO threads that spin 8 ms and
  // sleep 2 ms in turn (throws LoadError when the policy is refused).
  BusyThreads(int count, int core, bool realtime = false);
  ~BusyThreads();
  BusyThreads(const BusyThreads&) = delete;
  BusyThreads& operator=(const BusyThreads&) = delete;

 private:
  void stop() noexcept;
  std::atomic<bool> quit_{false};
  std::vector<std::thread> threads_;
};

}  // namespace collbench::contend
