// One measured case as it appears in a collbench CSV report (schema version kSchemaVersion;
// the reader reads versions 1 and 2 too: version 1 rows have no interval (confidence_pct 0),
// version 2 rows no interval of the mean).
#pragma once

#include <cstdint>
#include <string>

namespace collbench::report {

inline constexpr int kSchemaVersion = 3;
inline constexpr int kOldestReadableSchemaVersion = 1;

// Row status values; `reason` says why for anything but ok.
inline constexpr const char* kStatusOk = "ok";
inline constexpr const char* kStatusSkipped = "skipped";
inline constexpr const char* kStatusOom = "oom";
inline constexpr const char* kStatusError = "error";
inline constexpr const char* kStatusTimeout = "timeout";
// oom, error and timeout: the case ran and did not finish (a skipped case never ran).
inline bool is_failure_status(const std::string& status) {
  return status != kStatusOk && status != kStatusSkipped;
}

// Why the timed iterations ended (the stop column).
inline constexpr const char* kStopFixed = "fixed";           // -n iterations (or -G replays)
inline constexpr const char* kStopConverged = "converged";   // the interval got narrow enough
inline constexpr const char* kStopTimeLimit = "time_limit";  // --max-time came first

// Where and with what a run was measured: the same in every row of the run.
struct RunOrigin {
  std::string host;
  std::string gpu_name;  // of GPU 0; "none" without a GPU
  std::string driver;
  std::string cuda_runtime;
  std::string nccl_version;
  std::string collbench_version;
  std::string launch_mode = "single_process";  // single_process, mpi, env (torchrun/Slurm)
  int nodes = 1;
};

// How the timed iterations went: per-operation times over `samples` of them (one per iteration,
// graph replay or timed loop), the slowest rank's in each.
struct TimeStats {
  double mean_us = 0;
  double min_us = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
  double stdev_us = 0;
  double cv_pct = 0;  // stdev / mean, in percent
  // The confidence interval of the median (order statistics) at `confidence_pct`; 0 and 0 when
  // there are too few samples for that confidence (fewer than 6 at 95%).
  double p50_lo_us = 0;
  double p50_hi_us = 0;
  // The interval of the mean at the same confidence (Student's t), the uncertainty of busbw, which
  // comes from the mean; 0 and 0 whenever the median has none.
  double mean_lo_us = 0;
  double mean_hi_us = 0;
  double confidence_pct = 0;  // 0: no interval, as in version 1 reports
  int samples = 0;
  bool has_interval() const { return confidence_pct > 0; }
};

struct ReportRow {
  int schema_version = kSchemaVersion;
  std::string timestamp;  // ISO 8601 UTC, when the row was written
  RunOrigin origin;
  // Independent variables: what was measured.
  std::string op;    // registry name: all_reduce, ..., or an app's op (schema.hpp)
  std::string algo;  // the implementation: an --algo name, "nccl-tests" (imported), a copy method
  int ranks = 0;
  std::string dtype;
  std::string redop;  // sum, prod, max, min, avg; "none" for ops that do not reduce
  int root = 0;       // -1 for ops without a root
  bool in_place = false;
  std::uint64_t bytes = 0;  // nccl-tests' size column: the larger of send and receive buffer
  std::uint64_t count = 0;  // nccl-tests' count column: elements per rank passed to the call
  int warmup = 0;
  int iters = 0;
  int agg_iters = 1;
  int graph = 0;   // CUDA graph replays; 0 = launched normally
  int repeat = 0;  // which pass of --repeat measured the row (0 for the first)
  // key=value;...: dp_step model, a hand-built algorithm's changed knobs, or empty.
  std::string config;
  std::string stop = kStopFixed;  // why the timed iterations ended
  // Measured values: the times of the timed iterations, and the bandwidths from them.
  TimeStats time;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  // busbw at the ends of the median's interval: the interval of the median iteration's busbw.
  double busbw_gbps_lo = 0;
  double busbw_gbps_hi = 0;
  double peak_fraction = 0;  // busbw / measured per-GPU link peak; 0 when no peak is known
  std::uint64_t wrong_elements = 0;
  std::string status = kStatusOk;
  std::string reason;
  std::string extra;  // key=value;... extra measured values (dp_step: samples_per_s, ...)

  // A row read from a file may name a level without holding an interval (a hand edit).
  bool has_interval() const { return time.has_interval() && time.p50_hi_us > 0; }
};

}  // namespace collbench::report
