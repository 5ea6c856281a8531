// The collbench command line, parsed into plain values (no GPU is touched here): one table of
// settings (options.cpp), the common flags it takes, and the rules between options.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collbench/fault_injection.hpp"
#include "core/communicator_settings.hpp"
#include "core/data_type.hpp"
#include "core/split_rule.hpp"
#include "core/traffic_matrix.hpp"
#include "frame/settings/common_flags.hpp"
#include "measure/measure_settings.hpp"

namespace collbench {

enum class InPlaceMode { out_of_place, in_place, both };

// The defaults here are the table's (a test holds them equal), so that code building Options
// without a command line gets what `collbench` alone runs.
struct Options {
  std::vector<std::string> ops = {"all_reduce"};  // registry names; "all" expands
  std::vector<std::string> algos = {"nccl"};      // "all" expands per op
  std::size_t min_bytes = 8;
  std::size_t max_bytes = 128u << 20;
  double step_factor = 2.0;    // used when step_bytes == 0
  std::size_t step_bytes = 0;  // -i: arithmetic steps instead of a factor
  std::vector<DataType> types = {DataType::float32};
  std::vector<ReduceOp> reduce_ops = {ReduceOp::sum};
  std::string roots = "0";  // a rank or "all"
  InPlaceMode in_place = InPlaceMode::both;
  // NCCL's communicator variants, swept as a cartesian product for --algo nccl only, and buffer
  // registration, for every algorithm (frame/settings/communicator_axes.hpp).
  CommunicatorAxes axes;
  std::optional<SplitRule> split;  // --split: every GPU count's ranks in concurrent groups
  // alltoallv's traffic: nccl-tests' generated spreads (swept), or a matrix file read and checked
  // while parsing (then the sizes do not apply to alltoallv: the matrix is its one case).
  std::vector<double> a2av_spreads = {1.0};
  std::string a2av_matrix_path;  // as given on the command line
  std::shared_ptr<const TrafficMatrix> a2av_matrix;
  MeasureSettings run;  // -w -n -m -G --timing -c, the stop rule; --seed and --timeout from common
  InjectedFault fault;  // the hidden, test-only --inject-fault
  int repeats = 1;      // passes of the whole sweep (--repeat)
  std::string json_path;  // every case with every rank's samples (JSON Lines)
  std::string trace_path;
  std::string link_peak_path;  // a collbench_linkpeak CSV: rows get peak_fraction
  bool topology = false;       // print the GPU topology and exit
  // -g (the GPU counts to sweep), --seed, --timeout, --csv, --launcher, --list: their defaults
  // are only the table's (code building Options sets common.gpu_counts).
  CommonSettings common;
};

// Parses the arguments Google Benchmark left (args[0] is the program). Throws UsageError with a
// one-line message naming the bad value.
Options parse_command_line(const std::vector<std::string>& args);
// The options' --help text.
std::string command_line_help();

// Bounds that turn a typo into an error instead of a run that never ends.
inline constexpr double kMaxStepFactor = 1024;
inline constexpr int kMaxIterations = 10'000'000;
inline constexpr int kMaxAggregate = 1024;
inline constexpr int kMaxRepeats = 1000;
inline constexpr int kMaxCheckIterations = 1'000'000;
// --max-time and --min-time: a day per case is beyond any sensible sweep.
inline constexpr double kMaxCaseSeconds = 86'400;
// --confidence: rows keep 3 decimals, and a level above this would be written as 100.000, which
// the report reader refuses.
inline constexpr double kMaxConfidencePct = 99.999;

}  // namespace collbench
