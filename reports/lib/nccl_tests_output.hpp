// Reads what nccl-tests' perf binaries (version 2.19, src/util.cu) print on standard output: per
// run the header, the Rank lines, the column header, one data line per size and the trailer.
// Parsing only: names stay nccl-tests' own (nccl_tests_names.hpp says what they are in collbench).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collbench::report {

// -I 1: statistics of the per-iteration times (each iteration's slowest process), over the
// iterations after -K.
struct NcclTestsIterationStats {
  double min_us = 0;
  double max_us = 0;
  double p99_us = 0;
  double cv_pct = 0;
};

// One placement's columns of a data line.
struct NcclTestsPlacement {
  double time_us = 0;  // the mean over the timed iterations, averaged over ranks (or CPU time)
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<std::uint64_t> wrong_elements;  // none where the line says N/A (-c 0)
  std::optional<NcclTestsIterationStats> iterations;
};

struct NcclTestsDataLine {
  unsigned line = 0;
  std::uint64_t bytes = 0;  // size (B): the larger of send and receive buffer
  std::uint64_t count = 0;  // count (elements)
  std::string type;         // nccl-tests' names: float, bfloat16, f8e4m3, ...
  std::string redop;        // sum, prod, max, min, avg, mulsum, none (sendrecv prints its -o)
  int root = -1;
  NcclTestsPlacement out_of_place;
  NcclTestsPlacement in_place;
};

// "#  Rank  0 Group  0 Pid  12345 on    host01 device  0 [0000:07:00] NVIDIA H200"
struct NcclTestsRankLine {
  unsigned line = 0;
  int rank = 0;   // in MPI_COMM_WORLD
  int group = 0;  // the color of NCCL_TESTS_SPLIT (0 without it)
  long pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;  // "0000:07:00"
  std::string gpu_name;
};

struct NcclTestsRun {
  unsigned line = 0;        // its "# nccl-tests version" line
  std::string version;      // "2.19.6"
  int nccl_headers = 0;     // NCCL_VERSION_CODE it was built with, e.g. 22803
  int nccl_library = 0;     // the NCCL it ran with (ncclGetVersion)
  std::string program;      // "all_reduce_perf": its argv[0] without the directory
  int threads = 0;          // -t
  int gpus_per_thread = 0;  // -g
  int warmup_iters = 0;
  int iters = 0;
  int agg_iters = 1;
  int validation = 0;                    // -c: check iterations; 0 prints N/A for #wrong
  int graph = 0;                         // -G: CUDA graph launches
  int unalign = 0;                       // -u
  bool cpu_time = false;                 // -C 1: the time column is "cputime"
  std::vector<NcclTestsRankLine> ranks;  // in rank order, ranks 0..n-1 each once
  std::vector<NcclTestsDataLine> data;   // at least one
  double avg_busbw_gbps = 0;             // "# Avg bus bandwidth" (its presence ends the data)
};

struct NcclTestsOutput {
  std::string path;
  std::vector<NcclTestsRun> runs;  // at least one, in file order
};

// Parses nccl-tests output; `name` stands for the file in messages. Several runs may follow
// each other (one binary after another into one file). Text before the first run's version line
// and between a run's "# Collective test concluded" and the next run (launcher output) is
// ignored, as are NCCL's log lines (HOST:PID:TID [DEV] NCCL ...) and '#' lines it does not use.
// Anything else is refused with report::ReportError, one line "NAME:LINE: what, 'the text'": a
// line nccl-tests does not print, a data line with too few or too many fields or a bad number, a
// run that ends before its "# Avg bus bandwidth" line (cut off), Rank lines that miss a rank.
NcclTestsOutput parse_nccl_tests_output(const std::string& name, const std::string& text);
// The same for the file at `path` (at most kMaxReportBytes).
NcclTestsOutput read_nccl_tests_output(const std::string& path);

}  // namespace collbench::report
