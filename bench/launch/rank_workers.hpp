// One persistent host thread per rank. Each rank's work (events, collective launches, graph
// capture) is enqueued by its own thread, as it would be with one process per GPU, so host launch
// overhead is paid in parallel rather than summed over ranks.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace collbench {

class RankWorkers {
 public:
  // Starts one thread per entry of `devices`; thread i works on devices[i] as rank `ranks[i]`.
  RankWorkers(const std::vector<int>& devices, const std::vector<int>& ranks);
  ~RankWorkers();
  RankWorkers(const RankWorkers&) = delete;
  RankWorkers& operator=(const RankWorkers&) = delete;

  // Runs job(local_index) on every worker at once and returns when all are done. The first
  // exception a worker threw is rethrown here, after every worker has finished.
  void run(const std::function<void(int local)>& job);

 private:
  void work(int local, int device, int rank);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int)>* job_ = nullptr;
  unsigned long generation_ = 0;
  int pending_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::vector<std::thread> threads_;
};

}  // namespace collbench
