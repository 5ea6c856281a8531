// CLI11 definition of collbench_dpstep's options, their validation and the sweep expansion.
#include "dp_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <regex>
#include <string>

#include "core/algorithm.hpp"
#include "core/errors.hpp"
#include "launch/launch_environment.hpp"
#include "step_schedule.hpp"
#include "sweep/run_settings.hpp"

namespace collbench::dp {
namespace {

// An hour of warm-up is more than any GPU needs to reach its steady state.
constexpr double kMaxWarmupMs = 3.6e6;

void require_known_algorithm(const std::string& algo, const std::vector<std::string>& known) {
  if (std::find(known.begin(), known.end(), algo) == known.end()) {
    throw UsageError(fmt::format("--algo {}: unknown all-reduce algorithm (known: {})", algo,
                                 fmt::join(known, ", ")));
  }
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t end = text.find(separator); end != std::string::npos;
       end = text.find(separator, begin)) {
    parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  parts.push_back(text.substr(begin));
  return parts;
}

// The preset named `name`; a UsageError naming it and the known ones otherwise.
const Preset& find_preset(const std::string& name) {
  std::vector<std::string> known;
  for (const Preset& preset : presets()) {
    if (preset.name == name) return preset;
    known.push_back(preset.name);
  }
  throw UsageError(
      fmt::format("--preset {}: unknown preset (known: {})", name, fmt::join(known, ", ")));
}

// "Presets (--preset NAME; options given override them):" and one line per preset.
std::string preset_help() {
  std::string text = "Presets (--preset NAME; options given on the command line override them):";
  for (const Preset& preset : presets()) {
    std::string options;
    for (const auto& [option, value] : preset.options)
      options += fmt::format("{}{} {}", options.empty() ? "" : " ", option, value);
    text += fmt::format("\n  {}: {}{}{}", preset.name, preset.description,
                        options.empty() ? "" : ": ", options);
  }
  return text;
}

// Gives every option of `preset` that the command line did not give the preset's value, as if
// it had been typed.
void apply_preset(CLI::App& app, const Preset& preset) {
  for (const auto& [option, value] : preset.options) {
    CLI::Option* bound = app.get_option(option);
    if (bound->count() > 0) continue;
    bound->add_result(value);
    try {
      bound->run_callback();
    } catch (const CLI::ParseError& error) {
      throw UsageError(fmt::format("--preset {}: {}", preset.name, error.what()));
    }
  }
}

void validate_options(const DpOptions& o) {
  validate(o.model);
  if (o.schemes.empty()) throw UsageError("--sync: give at least one mode");
  if (o.bucket_mib.empty()) throw UsageError("--bucket-mib: give at least one size");
  for (double mib : o.bucket_mib) {
    if (!(mib > 0) || !std::isfinite(mib))
      throw UsageError(fmt::format("--bucket-mib {}: must be a positive size", mib));
  }
  if (o.algos.empty()) throw UsageError("--algo: give at least one algorithm");
  for (int n : o.ranks) {
    if (n < 1) throw UsageError(fmt::format("-g {}: a GPU count must be at least 1", n));
  }
  if (o.warmup < 0) throw UsageError(fmt::format("--warmup {}: must not be negative", o.warmup));
  if (o.iters < 1) throw UsageError(fmt::format("--iters {}: need at least 1 timed step", o.iters));
  if (!(o.warmup_ms >= 0) || o.warmup_ms > kMaxWarmupMs) {
    throw UsageError(
        fmt::format("--warmup-ms {}: must be from 0 to {:g}", o.warmup_ms, kMaxWarmupMs));
  }
  if (o.nccl_max_ctas < 0)
    throw UsageError(fmt::format("--nccl-max-ctas {}: must not be negative", o.nccl_max_ctas));
  if (o.comm_lanes < 1 || o.comm_lanes > kMaxCommLanes) {
    throw UsageError(
        fmt::format("--comm-lanes {}: must be from 1 to {}", o.comm_lanes, kMaxCommLanes));
  }
  for (int every : o.locksteps) {
    if (every < 0) throw UsageError(fmt::format("--lockstep {}: must not be negative", every));
  }
  for (int fused : o.fuse_last_update) {
    if (fused != 0 && fused != 1)
      throw UsageError(fmt::format("--fuse-last-update {}: must be 0 or 1", fused));
  }
  if (o.gemm_sm_margin < 0) {
    throw UsageError(fmt::format("--gemm-sm-margin {}: must not be negative", o.gemm_sm_margin));
  }
  if (!(o.timeout_s > 0))
    throw UsageError(fmt::format("--timeout {}: must be positive", o.timeout_s));
  if (o.timeout_s > kMaxTimeoutS)
    throw UsageError(fmt::format("--timeout {}: is more than {:g} s", o.timeout_s, kMaxTimeoutS));
}

template <typename T>
std::vector<T> deduplicated(std::vector<T> values) {
  std::vector<T> unique;
  for (const T& v : values) {
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  }
  return unique;
}

}  // namespace

std::string implementation_knobs(const std::vector<std::string>& implementations) {
  std::vector<std::string> knobs;
  for (const std::string& implementation : implementations) {
    const std::string config = algorithm_config(implementation);
    if (config.empty()) continue;
    // Knobs two implementations share (peer_launch for ring and oneshot) appear once.
    for (std::string& knob : split(config, ';')) {
      if (std::find(knobs.begin(), knobs.end(), knob) == knobs.end())
        knobs.push_back(std::move(knob));
    }
  }
  return fmt::format("{}", fmt::join(knobs, ";"));
}

std::string parse_last_bucket_algo(const std::string& value,
                                   const std::vector<std::string>& known) {
  if (value == kSameAlgo) return {};
  if (std::find(known.begin(), known.end(), value) == known.end()) {
    throw UsageError(
        fmt::format("--last-bucket-algo {}: unknown all-reduce algorithm (known: {}, {})", value,
                    kSameAlgo, fmt::join(known, ", ")));
  }
  return value;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = {
      {"default", "the defaults", {}},
      {"best",
       "the fastest step measured (4xH200: copy_engine's copies in one pipelined order, the ring "
       "for the last bucket)",
       {{"--sync", "overlap"},
        {"--bucket-mib", "33"},
        {"--algo", "copy_engine"},
        {"--comm-schedule", "pipelined"},
        {"--lockstep", "1"},
        {"--graph-memsets", "kernel"},
        {"--last-bucket-algo", "ring"}}},
  };
  return all;
}

DpOptions parse_dp_options(const std::vector<std::string>& args,
                           const std::vector<std::string>& known_algorithms) {
  DpOptions o;
  std::vector<std::string> sync_names = {"sync", "overlap"};
  std::string dtype_name = "bfloat16";
  std::string epilogue_name = "auto";
  std::vector<std::string> comm_schedule_names = {"lanes"};

  CLI::App app{"collbench_dpstep: data-parallel training-step benchmark (MLP, gradient all-reduce)",
               "collbench_dpstep"};
  app.add_option("--layers", o.model.layers, "MLP layers")->capture_default_str();
  app.add_option("--width", o.model.width, "layer width H (multiple of 8)")->capture_default_str();
  app.add_option("--batch", o.model.batch, "samples per GPU (weak scaling)")->capture_default_str();
  app.add_option("--dtype", dtype_name, "bfloat16 or float")->capture_default_str();
  app.add_option("--sync", sync_names, "gradient sync modes: sync, overlap, ps, sharded")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--bucket-mib", o.bucket_mib, "bucket caps in MiB (overlap, ps, sharded)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--algo", o.algos, "all-reduce implementations (registry names)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("-g,--gpus", o.ranks, "GPU counts (default: 1 and all visible)")->delimiter(',');
  app.add_option("--warmup", o.warmup, "untimed steps per measured pass")->capture_default_str();
  app.add_option("--warmup-ms", o.warmup_ms,
                 "untimed steps continue until this many ms have passed, so that the timed ones "
                 "run in the GPUs' steady (power-capped) state; 0: --warmup steps only")
      ->capture_default_str();
  app.add_option("--iters", o.iters, "timed steps per measured pass")->capture_default_str();
  app.add_option("--csv", o.csv_path, "write rows to this CSV file (each flushed as measured)");
  app.add_flag("--check", o.check,
               "run correctness checks (identical weights, DP gradient = 1-GPU gradient)");
  app.add_option("--lr", o.model.learning_rate, "SGD learning rate")->capture_default_str();
  app.add_option("--momentum", o.model.momentum, "SGD momentum")->capture_default_str();
  app.add_option("--seed", o.model.seed, "seed of the synthetic model and data")
      ->capture_default_str();
  app.add_flag("--list", o.list, "list the configurations and algorithms, run nothing");
  app.add_flag("--eager", o.eager,
               "launch kernels from the host every step instead of replaying CUDA graphs");
  app.add_option("--epilogue", epilogue_name,
                 "bias/ReLU: auto, fused (cuBLASLt epilogues) or unfused")
      ->capture_default_str();
  app.add_flag("--master-weights,!--no-master-weights", o.model.master_weights,
               "bfloat16: float32 master weights and momentum (default: bf16 weights and momentum, "
               "as PyTorch's SGD on a bf16 model)");
  app.add_option("--nccl-max-ctas", o.nccl_max_ctas,
                 "NCCL maxCTAs for the communicators (0: NCCL's choice)")
      ->capture_default_str();
  app.add_option("--gemm-sm-margin", o.gemm_sm_margin,
                 "SMs backward GEMMs leave free for communication, on 2+ GPUs (0: none)")
      ->capture_default_str();
  app.add_option("--comm-lanes", o.comm_lanes,
                 "communication streams buckets alternate over, for algorithms whose instances "
                 "run concurrently (copy_engine; up to 4)")
      ->capture_default_str();
  app.add_option("--comm-schedule", comm_schedule_names,
                 "copy_engine's buckets: lanes (each all-reduce whole on its lane) or pipelined "
                 "(in parts: one stream carries every bucket's copies in one order, another "
                 "reduces); list")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--lockstep", o.locksteps,
                 "N: a barrier across the GPUs before every Nth backward layer (from the first), "
                 "on the compute streams, so that every GPU starts the copies its GEMMs release "
                 "at the same time (2+ GPUs that reach one another's memory); 0: none; list")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--fuse-last-update", o.fuse_last_update,
                 "1: the last bucket's SGD update runs inside its all-reduce (needs "
                 "--last-bucket-algo twoshot: each rank updates its own chunk and stores the "
                 "weights into every rank's copy); 0: after it; list")
      ->delimiter(',')
      ->capture_default_str();
  std::vector<std::string> graph_memset_names = {"memset"};
  app.add_option("--graph-memsets", graph_memset_names,
                 "the memset nodes a step's CUDA graph captures (cuBLASLt zeroes a few bytes "
                 "before some GEMMs): kernel (kernel nodes writing the same bytes, so the next "
                 "kernel starts as after any kernel) or memset (as captured); list")
      ->delimiter(',')
      ->capture_default_str();
  std::vector<std::string> last_bucket_values = {kSameAlgo};
  app.add_option(
         "--last-bucket-algo", last_bucket_values,
         "the last bucket's all-reduce implementation (layer 0's gradients, after "
         "backward's last GEMM, when the SMs are free): a registry name or same (--algo's); "
         "list")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--timeout", o.timeout_s,
                 "seconds a measured pass may take before it is abandoned")
      ->capture_default_str();
  app.add_option("--launcher", o.launcher, kLauncherOptionHelp)->capture_default_str();
  std::string preset_name = "default";
  app.add_option("--preset", preset_name, "a named set of defaults (below)")->capture_default_str();
  app.footer(preset_help());

  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(app.help());
  } catch (const CLI::ParseError& error) {
    throw UsageError(error.what());
  }
  apply_preset(app, find_preset(preset_name));

  o.model.dtype = parse_data_type(dtype_name);
  o.model.epilogue = parse_epilogue_mode(epilogue_name);
  o.schemes.clear();
  for (const std::string& name : sync_names) o.schemes.push_back(parse_sync_scheme(name));
  o.schemes = deduplicated(o.schemes);
  o.comm_schedules.clear();
  for (const std::string& name : comm_schedule_names)
    o.comm_schedules.push_back(parse_comm_schedule(name));
  o.comm_schedules = deduplicated(o.comm_schedules);
  o.locksteps = deduplicated(o.locksteps);
  o.graph_memsets.clear();
  for (const std::string& name : graph_memset_names)
    o.graph_memsets.push_back(parse_graph_memsets(name));
  o.graph_memsets = deduplicated(o.graph_memsets);
  o.fuse_last_update = deduplicated(o.fuse_last_update);
  o.bucket_mib = deduplicated(o.bucket_mib);
  o.algos = deduplicated(o.algos);
  validate_options(o);
  check_launcher_name(o.launcher);
  for (const std::string& algo : o.algos) require_known_algorithm(algo, known_algorithms);
  if (last_bucket_values.empty()) throw UsageError("--last-bucket-algo: give at least one");
  o.last_bucket_algos.clear();
  for (const std::string& value : last_bucket_values)
    o.last_bucket_algos.push_back(parse_last_bucket_algo(value, known_algorithms));
  o.last_bucket_algos = deduplicated(o.last_bucket_algos);
  const bool fused = std::find(o.fuse_last_update.begin(), o.fuse_last_update.end(), 1) !=
                     o.fuse_last_update.end();
  if (fused && o.last_bucket_algos != std::vector<std::string>{"twoshot"}) {
    throw UsageError(
        "--fuse-last-update 1: needs --last-bucket-algo twoshot (alone, in every configuration)");
  }
  return o;
}

std::vector<int> rank_counts(const DpOptions& options, int visible_gpus) {
  std::vector<int> counts = options.ranks;
  if (counts.empty()) counts = {1, std::max(1, visible_gpus)};
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

namespace {

// Each configuration of `plan` once per value of `values` (given by `values_for(config)`), in
// order, with `set(config, value)` applied: one more swept setting, nested inside those before.
template <typename ValuesFor, typename Set>
std::vector<StepConfig> sweep(const std::vector<StepConfig>& plan, ValuesFor values_for, Set set) {
  std::vector<StepConfig> expanded;
  for (const StepConfig& config : plan) {
    for (const auto& value : values_for(config)) {
      expanded.push_back(config);
      set(expanded.back(), value);
    }
  }
  return expanded;
}

template <typename Value, typename Set>
std::vector<StepConfig> sweep(const std::vector<StepConfig>& plan, const std::vector<Value>& values,
                              Set set) {
  return sweep(
      plan, [&values](const StepConfig&) -> const std::vector<Value>& { return values; }, set);
}

}  // namespace

std::vector<StepConfig> expand_plan(const DpOptions& options, int visible_gpus) {
  StepConfig fixed;
  fixed.model = options.model;
  fixed.nccl_max_ctas = options.nccl_max_ctas;
  fixed.gemm_sm_margin = options.gemm_sm_margin;
  fixed.comm_lanes = options.comm_lanes;
  std::vector<StepConfig> plan = {fixed};
  plan = sweep(plan, options.schemes, [](StepConfig& c, SyncScheme s) { c.scheme = s; });
  // sync has one bucket: a bucket sweep would repeat the same configuration.
  const std::vector<double> one_bucket = {0};
  plan = sweep(
      plan,
      [&](const StepConfig& c) -> const std::vector<double>& {
        return uses_buckets(c.scheme) ? options.bucket_mib : one_bucket;
      },
      [](StepConfig& c, double mib) { c.bucket_mib = mib; });
  plan = sweep(plan, options.algos, [](StepConfig& c, const std::string& a) { c.algo = a; });
  plan = sweep(plan, options.last_bucket_algos, [](StepConfig& c, const std::string& last) {
    c.last_bucket_algo = last;
    // Read here, before anything runs: a bad knob in the environment stops the plan at once.
    c.algorithm_knobs = implementation_knobs(last.empty() ? std::vector<std::string>{c.algo}
                                                          : std::vector<std::string>{c.algo, last});
  });
  plan = sweep(plan, options.comm_schedules,
               [](StepConfig& c, CommSchedule s) { c.comm_schedule = s; });
  plan = sweep(plan, options.locksteps, [](StepConfig& c, int every) { c.lockstep = every; });
  plan = sweep(plan, options.fuse_last_update,
               [](StepConfig& c, int fused) { c.fuse_last_update = fused != 0; });
  plan = sweep(plan, options.graph_memsets,
               [](StepConfig& c, GraphMemsets memsets) { c.graph_memsets = memsets; });
  return sweep(plan, rank_counts(options, visible_gpus),
               [](StepConfig& c, int ranks) { c.ranks = ranks; });
}

bool passes_benchmark_filter(const std::string& name, const std::string& filter) {
  if (filter.empty() || filter == "all") return true;
  const bool negated = filter.front() == '-';
  try {
    const std::regex pattern(negated ? filter.substr(1) : filter);
    return std::regex_search(name, pattern) != negated;
  } catch (const std::regex_error&) {
    throw UsageError(
        fmt::format("--benchmark_filter '{}': not a valid regular expression", filter));
  }
}

}  // namespace collbench::dp
