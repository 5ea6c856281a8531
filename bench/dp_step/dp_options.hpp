// The collbench_dpstep command line (CLI11) and the sweep plan it expands to: one StepConfig per
// (sync mode, bucket size, algorithm, last bucket's algorithm, communication schedule, lockstep,
// fused update, graph memsets, rank count), rank counts ascending so the 1-GPU baseline of every
// config is measured before the configs that are compared with it.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dp_config.hpp"

namespace collbench::dp {

// --last-bucket-algo's value for "the bucket's own --algo".
inline constexpr const char* kSameAlgo = "same";

// One --last-bucket-algo value: "" for "same", else the registry name. Throws UsageError naming
// `value` when it is neither "same" nor a name of `known`.
std::string parse_last_bucket_algo(const std::string& value, const std::vector<std::string>& known);

// The changed knobs of each implementation (the registry's algorithm_config of each), joined with
// ';', each knob once: what a row of --algo copy_engine --last-bucket-algo ring reports.
std::string implementation_knobs(const std::vector<std::string>& implementations);

// A named set of option values (--preset NAME): defaults that options given on the command line
// override, each option as a whole (a given --algo replaces the preset's list).
struct Preset {
  const char* name;
  const char* description;
  std::vector<std::pair<const char*, const char*>> options;  // option name, value as typed
};
// Every preset, "default" (the plain defaults) first.
const std::vector<Preset>& presets();

struct DpOptions {
  ModelConfig model;
  std::vector<SyncScheme> schemes = {SyncScheme::sync, SyncScheme::overlap};
  std::vector<double> bucket_mib = {25};
  std::vector<std::string> algos = {"nccl"};
  std::vector<int> ranks;  // empty: 1 and every visible GPU
  int warmup = 10;
  double warmup_ms = 0;  // PassSettings::warmup_ms of every pass
  int iters = 50;
  std::string csv_path;
  bool check = false;
  bool list = false;
  bool eager = false;  // launch every kernel from the host instead of replaying CUDA graphs
  int nccl_max_ctas = 0;
  int gemm_sm_margin = 0;
  int comm_lanes = 2;
  std::vector<CommSchedule> comm_schedules = {CommSchedule::lanes};
  std::vector<int> locksteps = {0};
  std::vector<int> fuse_last_update = {0};  // StepConfig::fuse_last_update (0 or 1), swept
  std::vector<GraphMemsets> graph_memsets = {GraphMemsets::memset};  // swept
  // The last bucket's implementation, per configuration (--last-bucket-algo's values; "": same).
  std::vector<std::string> last_bucket_algos = {""};
  double timeout_s = 120;
  std::string launcher = "auto";  // auto, single, mpi, env (launch_environment.hpp)
};

// --help was given: `text` is the help to print; exit 0.
class HelpRequested : public std::runtime_error {
 public:
  explicit HelpRequested(const std::string& text) : std::runtime_error(text) {}
};

// Parses the arguments Google Benchmark left (args[0] is the program). Throws UsageError with a
// one-line message for a bad option or value, HelpRequested for --help. `known_algorithms` are
// the all-reduce implementations the registry offers.
DpOptions parse_dp_options(const std::vector<std::string>& args,
                           const std::vector<std::string>& known_algorithms);

// 1 and `visible_gpus` (deduplicated) when no -g was given. With one process per GPU,
// `visible_gpus` is the number of processes.
std::vector<int> rank_counts(const DpOptions& options, int visible_gpus);

// Every configuration to run, in run order (see above).
std::vector<StepConfig> expand_plan(const DpOptions& options, int visible_gpus);

// Whether `name` passes Google Benchmark's --benchmark_filter (a regex; a leading '-' negates;
// empty or "all" keeps everything), so --list shows what a run would measure.
bool passes_benchmark_filter(const std::string& name, const std::string& filter);

}  // namespace collbench::dp
