// The collbench_dpstep command line (CLI11) and the sweep plan it expands to: one StepConfig per
// (sync mode, bucket size, algorithm, last buckets' algorithm, weight-gradient split, communication
// schedule, rank count),
// rank counts ascending so the 1-GPU baseline of every config is measured before the configs that
// are compared with it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "dp_config.hpp"

namespace collbench::dp {

// --last-bucket-algo's value for "the bucket's own --algo".
inline constexpr const char* kSameAlgo = "same";

// --last-layer-buckets' largest value: each bucket has its own collective instance and events.
inline constexpr int kMaxLastLayerBuckets = 64;

// One --last-bucket-algo value: "same", "NAME" (the last bucket runs NAME) or "NAME:N" (the last
// N buckets do, one after another on one lane).
struct LastBuckets {
  std::string algo;  // empty: same (--algo's)
  int count = 1;
  bool operator==(const LastBuckets& other) const {
    return algo == other.algo && count == other.count;
  }
};
// Throws UsageError naming `value` when it is not "same", a name of `known`, or such a name with
// ":N" for a whole N >= 1.
LastBuckets parse_last_buckets(const std::string& value, const std::vector<std::string>& known);

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
  std::vector<WgradSplit> wgrad_splits = {WgradSplit::none};
  std::vector<int> last_layer_buckets = {0};  // StepConfig::last_layer_buckets, swept
  int comm_lanes = 2;
  std::vector<CommSchedule> comm_schedules = {CommSchedule::lanes};
  std::vector<int> locksteps = {0};
  std::vector<int> fuse_last_update = {0};  // StepConfig::fuse_last_update (0 or 1), swept
  std::vector<GraphMemsets> graph_memsets = {GraphMemsets::memset};  // swept
  int defer_first = 0;  // StepConfig::defer_first
  // The last buckets' implementation, per configuration (--last-bucket-algo's values).
  std::vector<LastBuckets> last_buckets = {LastBuckets{}};
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
