// Stop signals, the duration clock and the ready announcement.
#include "load_session.hpp"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "contend_errors.hpp"

namespace collbench::contend {
namespace {

std::atomic<int> stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

extern "C" void on_stop_signal(int signal_number) {
  stop_signal.store(signal_number, std::memory_order_relaxed);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : {SIGINT, SIGTERM}) {
    if (sigaction(signal_number, &action, nullptr) != 0)
      throw LoadError(std::string("sigaction: ") + std::strerror(errno));
  }
}

LoadSession::LoadSession(Truth truth, std::string truth_path, double duration_s)
    : truth_(std::move(truth)), truth_path_(std::move(truth_path)), duration_s_(duration_s) {}

bool LoadSession::stopping() const {
  if (stop_signal.load(std::memory_order_relaxed) != 0) return true;
  return announced_ && duration_s_ > 0 && std::chrono::steady_clock::now() >= deadline_;
}

void LoadSession::announce(const std::string& detail) {
  if (announced_) return;
  truth_.detail = detail;
  if (!truth_path_.empty()) write_truth(truth_, truth_path_);
  std::printf("collbench_contend: ready: %s\n", detail.c_str());
  std::fflush(stdout);
  announced_ = true;
  start_ = std::chrono::steady_clock::now();
  deadline_ = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(duration_s_));
}

double LoadSession::loaded_s() const {
  if (!announced_) return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void LoadSession::report(const std::string& summary) const {
  std::fprintf(stderr, "collbench_contend: stopped: %s\n", summary.c_str());
}

}  // namespace collbench::contend
