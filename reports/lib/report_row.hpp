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
inline constexpr const char* kStopFixed = "fixed";          // -n iterations (or -G replays)
inline constexpr const char* kStopConverged = "converged";  // the interval got narrow enough
inline constexpr const char* kStopTimeLimit = "time_limit"; // --max-time came first

struct ReportRow {
  int schema_version = kSchemaVersion;
  // Where and with what it was measured.
  std::string timestamp;  // ISO 8601 UTC, when the row was written
  std::string host;
  std::string gpu_name;
  std::string driver;
  std::string cuda_runtime;
  std::string nccl_version;
  std::string collbench_version;
  std::string launch_mode;  // single_process, mpi, env (torchrun/Slurm)
  int nodes = 1;
  // Independent variables: what was measured.
  std::string op;    // registry name: all_reduce, ..., or dp_step
  std::string algo;  // nccl, ring, ring_sendrecv, oneshot
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
  int graph = 0;       // CUDA graph replays; 0 = launched normally
  int repeat = 0;      // which pass of --repeat measured the row (0 for the first)
  std::string config;  // key=value;...: dp_step model, a hand-built algorithm's changed knobs, or empty
  // How the timed iterations went: `samples` per-operation times (one per iteration, graph
  // replay or timed loop) ended by `stop`; intervals are at `confidence_pct` (0: none, as in
  // version 1 reports and rows with too few samples).
  int samples = 0;
  std::string stop = kStopFixed;
  double confidence_pct = 0;
  // Measured values: per-operation time over the timed iterations, slowest rank per iteration.
  double time_us_mean = 0;
  double time_us_min = 0;
  double time_us_p50 = 0;
  double time_us_p99 = 0;
  double time_us_max = 0;
  double time_us_stdev = 0;
  double time_cv_pct = 0;     // stdev / mean, in percent
  double time_us_p50_lo = 0;  // the confidence interval of the median time (order statistics)
  double time_us_p50_hi = 0;
  // The confidence interval of the mean time (Student's t), the uncertainty of busbw_gbps, which
  // comes from the mean; 0 and 0 without an interval.
  double time_us_mean_lo = 0;
  double time_us_mean_hi = 0;
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

  bool has_interval() const { return confidence_pct > 0 && time_us_p50_hi > 0; }
};

}  // namespace collbench::report
