// What every load shares: when to stop (SIGINT, SIGTERM, or --duration-s after ready), and the
// announcement that the load is established (the truth file, then the ready line).
#pragma once

#include <chrono>
#include <string>

#include "truth.hpp"

namespace collbench::contend {

// Makes SIGINT and SIGTERM ask every load to stop instead of ending the process, so that it
// frees what it holds (GPU memory, peer access, pinned threads) and exits 0.
void install_stop_handlers();

class LoadSession {
 public:
  LoadSession(Truth truth, std::string truth_path, double duration_s);

  // True once a stop signal came, or duration_s passed since announce (when duration_s > 0).
  bool stopping() const;

  // Once the load runs: writes the truth file (when asked for), prints "collbench_contend: ready:
  // <detail>" to stdout and flushes it, and starts the duration clock.
  void announce(const std::string& detail);

  // Seconds since announce (0 before it).
  double loaded_s() const;

  // At the end: "collbench_contend: stopped: <summary>" on stderr, e.g. the GEMM rate reached, so
  // that a log shows how heavy the load was.
  void report(const std::string& summary) const;

 private:
  Truth truth_;
  std::string truth_path_;
  double duration_s_;
  bool announced_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace collbench::contend
