// The rank worker threads: a generation counter hands each job to every thread exactly once.
#include "launch/rank_workers.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <pthread.h>

#include "core/errors.hpp"

namespace collbench {

RankWorkers::RankWorkers(const std::vector<int>& devices, const std::vector<int>& ranks) {
  for (std::size_t i = 0; i < devices.size(); ++i) {
    threads_.emplace_back(&RankWorkers::work, this, static_cast<int>(i), devices[i], ranks[i]);
  }
}

RankWorkers::~RankWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void RankWorkers::run(const std::function<void(int)>& job) {
  std::unique_lock<std::mutex> lock(mutex_);
  job_ = &job;
  failure_ = nullptr;
  pending_ = static_cast<int>(threads_.size());
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
  if (failure_) std::rethrow_exception(failure_);
}

void RankWorkers::work(int local, int device, int rank) {
  // "cb-rank-3": how a tool outside the process finds this rank's thread (collbench_contend
  // --cpu-starve pins it; its proc_scan.cpp spells the same name). Without a name, nothing breaks.
  (void)pthread_setname_np(pthread_self(), fmt::format("cb-rank-{}", rank).substr(0, 15).c_str());
  // The thread stays on its GPU; errors it raises name its rank.
  cudaSetDevice(device);
  set_current_rank(rank);
  unsigned long seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    const std::function<void(int)>* job = job_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      (*job)(local);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    if (failure && !failure_) failure_ = failure;
    if (--pending_ == 0) done_.notify_all();
  }
}

}  // namespace collbench
