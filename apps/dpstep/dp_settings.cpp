// The table of collbench_dpstep's settings, value checks, the config string and benchmark names.
#include "dp_settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <stdexcept>

#include "core/errors.hpp"
#include "launch/launch_environment.hpp"
#include "step_schedule.hpp"
#include "frame/value_parsers.hpp"
#include "measure/measure_settings.hpp"
#include "algorithms/algorithm_registry.hpp"

namespace collbench::dp {
namespace {

// An hour of warm-up is more than any GPU needs to reach its steady state.
constexpr double kMaxWarmupMs = 3.6e6;
// More memory than any GPU has: such a model is a typo, refused before it is allocated.
constexpr double kMaxModelBytes = 4.0 * (1ull << 40);

// Numbers above LLONG_MAX (a 64-bit seed) read as LLONG_MAX: every other setting's range is
// far below it.
bool whole_number(const std::string& text, long long* value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, *value);
  if (error == std::errc() && stop == end) return true;
  unsigned long long large = 0;
  const auto [large_stop, large_error] = std::from_chars(text.data(), end, large);
  *value = LLONG_MAX;
  return large_error == std::errc() && large_stop == end;
}

bool real_number(const std::string& text, double* value) {
  if (text.empty()) return false;
  std::size_t used = 0;
  try {
    *value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && std::isfinite(*value);
}

// Values reach apply only after check_value, so these conversions cannot fail.
int to_int(const std::string& value) {
  return std::stoi(value);
}
double to_double(const std::string& value) {
  return std::stod(value);
}
bool to_bool(const std::string& value) {
  return value == "true";
}

// Rules: a whole number from `min` to `max`; otherwise the reason `why`.
std::function<std::string(const std::string&)> whole_from(long long min, long long max,
                                                          std::string why) {
  return [min, max, why](const std::string& value) {
    long long number = 0;
    whole_number(value, &number);
    return number >= min && number <= max ? std::string() : why;
  };
}
std::function<std::string(const std::string&)> real_where(std::function<bool(double)> allowed,
                                                          std::string why) {
  return [allowed, why](const std::string& value) {
    return allowed(to_double(value)) ? std::string() : why;
  };
}

// "key=value" when `differs`, else nothing.
std::string shown(bool differs, const char* key, const std::string& value) {
  return differs ? fmt::format("{}={}", key, value) : std::string();
}
std::string named(bool differs, const char* key, const std::string& value) {
  return differs ? fmt::format("/{}:{}", key, value) : std::string();
}

const StepConfig kDefaults;

std::vector<Setting> make_settings() {
  std::vector<Setting> s;
  s.push_back(
      Setting("--layers", ValueKind::integer, "8", "MLP layers")
          .with_rule(whole_from(1, INT_MAX, "need at least 1 layer"))
          .to_step([](StepConfig& c, const std::string& v) { c.model.layers = to_int(v); })
          .in_config([](const StepConfig& c) { return fmt::format("layers={}", c.model.layers); }));
  s.push_back(
      Setting("--width", ValueKind::integer, "4096", "layer width H (multiple of 8)")
          // Multiples of 8 keep every row 16-byte aligned, as cuBLASLt's tensor-core kernels need.
          .with_rule([](const std::string& v) {
            long long width = 0;
            whole_number(v, &width);
            return width >= 8 && width <= INT_MAX && width % 8 == 0
                       ? std::string()
                       : std::string("must be a positive multiple of 8");
          })
          .to_step([](StepConfig& c, const std::string& v) { c.model.width = to_int(v); })
          .in_config([](const StepConfig& c) { return fmt::format("width={}", c.model.width); }));
  s.push_back(
      Setting("--batch", ValueKind::integer, "2048", "samples per GPU (weak scaling)")
          .with_rule(whole_from(1, INT_MAX, "need at least 1 sample per GPU"))
          .to_step([](StepConfig& c, const std::string& v) { c.model.batch = to_int(v); })
          .in_config([](const StepConfig& c) { return fmt::format("batch={}", c.model.batch); }));
  s.push_back(
      Setting("-d,--dtype", ValueKind::text, "bfloat16", "model data types: bfloat16, float (as collbench's -d)")
          .as_list()
          .one_of({"bfloat16", "float"}, "model data type")
          .to_step([](StepConfig& c, const std::string& v) { c.model.dtype = parse_data_type(v); })
          .in_config(
              [](const StepConfig& c) { return fmt::format("dtype={}", name_of(c.model.dtype)); })
          .in_name([](const StepConfig& c) {
            return named(c.model.dtype != kDefaults.model.dtype, "dtype", std::string(name_of(c.model.dtype)));
          }));
  s.push_back(
      Setting("--sync", ValueKind::text, "sync,overlap",
              "gradient sync modes: sync, overlap, ps, sharded")
          .as_list()
          .one_of({"sync", "overlap", "ps", "sharded"}, "sync mode")
          .to_step([](StepConfig& c, const std::string& v) { c.scheme = parse_sync_scheme(v); })
          .in_config([](const StepConfig& c) { return fmt::format("sync={}", name_of(c.scheme)); })
          .in_name([](const StepConfig& c) { return fmt::format("/{}", name_of(c.scheme)); }));
  s.push_back(
      Setting("--bucket-mib", ValueKind::real, "25", "bucket caps in MiB (overlap, ps, sharded)")
          .as_list()
          .with_rule(real_where([](double mib) { return mib > 0; }, "must be a positive size"))
          .to_step([](StepConfig& c, const std::string& v) { c.bucket_mib = to_double(v); })
          // sync has one bucket: a bucket sweep would repeat the same configuration.
          .only_for([](const StepConfig& c) { return uses_buckets(c.scheme); }, "0")
          .in_config([](const StepConfig& c) {
            return fmt::format("bucket_mib={}",
                               uses_buckets(c.scheme) ? format_mib(c.bucket_mib) : "0");
          })
          .in_name([](const StepConfig& c) {
            return fmt::format("/bucket_mib:{}",
                               uses_buckets(c.scheme) ? format_mib(c.bucket_mib) : "0");
          }));
  s.push_back(
      Setting("--algo", ValueKind::text, "nccl",
              "all-reduce implementations, with optional settings as collbench's (ring:ctas=32)")
          .as_list()
          .or_algorithm("all-reduce algorithm")
          .to_step([](StepConfig& c, const std::string& v) { c.algo = v; })
          // The settings follow in the config string's knobs (algorithm_knobs).
          .in_config([](const StepConfig& c) { return "algo=" + std::string(algorithm_name_of(c.algo)); })
          .in_name([](const StepConfig& c) { return "/algo:" + c.algo; }));
  s.push_back(
      Setting("--master-weights,!--no-master-weights", ValueKind::flag, "false",
              "bfloat16: float32 master weights and momentum (default: bf16 weights and "
              "momentum, as PyTorch's SGD on a bf16 model)")
          .to_step([](StepConfig& c, const std::string& v) { c.model.master_weights = to_bool(v); })
          .in_config([](const StepConfig& c) {
            if (c.model.dtype != DataType::bfloat16) return std::string();
            return std::string(c.model.master_weights ? "optimizer=fp32_master" : "optimizer=bf16");
          }));
  s.push_back(Setting("--epilogue", ValueKind::text, "auto",
                      "bias/ReLU: auto, fused (cuBLASLt epilogues) or unfused")
                  .one_of({"auto", "fused", "unfused"}, "epilogue mode")
                  .to_step([](StepConfig& c, const std::string& v) {
                    c.model.epilogue = parse_epilogue_mode(v);
                  })
                  .in_config([](const StepConfig& c) {
                    return shown(c.model.epilogue != kDefaults.model.epilogue, "epilogue",
                                 std::string(name_of(c.model.epilogue)));
                  }));
  s.push_back(Setting("--nccl-max-ctas", ValueKind::integer, "0",
                      "NCCL maxCTAs for the communicators (0: NCCL's choice)")
                  .with_rule(whole_from(0, INT_MAX, "must not be negative"))
                  .to_step([](StepConfig& c, const std::string& v) { c.nccl_max_ctas = to_int(v); })
                  .in_config([](const StepConfig& c) {
                    return shown(c.nccl_max_ctas > 0, "nccl_max_ctas",
                                 std::to_string(c.nccl_max_ctas));
                  }));
  s.push_back(
      Setting("--gemm-sm-margin", ValueKind::integer, "0",
              "SMs backward GEMMs leave free for communication, on 2+ GPUs (0: none)")
          .with_rule(whole_from(0, INT_MAX, "must not be negative"))
          .to_step([](StepConfig& c, const std::string& v) { c.gemm_sm_margin = to_int(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.gemm_sm_margin > 0, "gemm_sm_margin", std::to_string(c.gemm_sm_margin));
          }));
  s.push_back(Setting("--comm-lanes", ValueKind::integer, "2",
                      "communication streams buckets alternate over, for algorithms whose "
                      "instances run concurrently (copy_engine; up to 4)")
                  .with_rule(whole_from(1, kMaxCommLanes,
                                        fmt::format("must be from 1 to {}", kMaxCommLanes)))
                  .to_step([](StepConfig& c, const std::string& v) { c.comm_lanes = to_int(v); })
                  .in_config([](const StepConfig& c) {
                    return shown(c.comm_lanes != kDefaults.comm_lanes, "comm_lanes",
                                 std::to_string(c.comm_lanes));
                  }));
  s.push_back(Setting("--comm-schedule", ValueKind::text, "lanes",
                      "copy_engine's buckets: lanes (each all-reduce whole on its lane) or "
                      "pipelined (in parts: one stream carries every bucket's copies in one "
                      "order, another reduces); list")
                  .as_list()
                  .one_of({"lanes", "pipelined"}, "communication schedule")
                  .to_step([](StepConfig& c, const std::string& v) {
                    c.comm_schedule = parse_comm_schedule(v);
                  })
                  .in_config([](const StepConfig& c) {
                    return shown(c.comm_schedule != kDefaults.comm_schedule, "comm_schedule",
                                 std::string(name_of(c.comm_schedule)));
                  })
                  .in_name([](const StepConfig& c) {
                    return named(c.comm_schedule != kDefaults.comm_schedule, "comm_schedule",
                                 std::string(name_of(c.comm_schedule)));
                  }));
  s.push_back(Setting("--last-bucket-algo", ValueKind::text, kSameAlgo,
                      "the last bucket's all-reduce implementation (layer 0's gradients, after "
                      "backward's last GEMM, when the SMs are free): a registry name or same "
                      "(--algo's); list")
                  .as_list()
                  .one_of({kSameAlgo}, "all-reduce algorithm")
                  .or_algorithm("all-reduce algorithm")
                  .to_step([](StepConfig& c, const std::string& v) {
                    c.last_bucket_algo = v == kSameAlgo ? "" : v;
                  })
                  .in_config([](const StepConfig& c) {
                    return shown(!c.last_bucket_algo.empty(), "last_bucket_algo",
                                 std::string(algorithm_name_of(c.last_bucket_algo)));
                  })
                  .in_name([](const StepConfig& c) {
                    return named(!c.last_bucket_algo.empty(), "last_bucket", c.last_bucket_algo);
                  }));
  s.push_back(
      Setting("--lockstep", ValueKind::integer, "0",
              "N: a barrier across the GPUs before every Nth backward layer (from the "
              "first), on the compute streams, so that every GPU starts the copies its "
              "GEMMs release at the same time (2+ GPUs that reach one another's "
              "memory); 0: none; list")
          .as_list()
          .with_rule(whole_from(0, INT_MAX, "must not be negative"))
          .to_step([](StepConfig& c, const std::string& v) { c.lockstep = to_int(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.lockstep != kDefaults.lockstep, "lockstep", std::to_string(c.lockstep));
          })
          .in_name([](const StepConfig& c) {
            return named(c.lockstep != kDefaults.lockstep, "lockstep", std::to_string(c.lockstep));
          }));
  s.push_back(
      Setting("--fuse-last-update", ValueKind::integer, "0",
              "1: the last bucket's SGD update runs inside its all-reduce (needs "
              "--last-bucket-algo twoshot: each rank updates its own chunk and stores "
              "the weights into every rank's copy); 0: after it; list")
          .as_list()
          .with_rule(whole_from(0, 1, "must be 0 or 1"))
          .to_step([](StepConfig& c, const std::string& v) { c.fuse_last_update = to_int(v) == 1; })
          .in_config(
              [](const StepConfig& c) { return shown(c.fuse_last_update, "fused_update", "1"); })
          .in_name([](const StepConfig& c) {
            return std::string(c.fuse_last_update ? "/fused_update" : "");
          }));
  s.push_back(Setting("--graph-memsets", ValueKind::text, "memset",
                      "the memset nodes a step's CUDA graph captures (cuBLASLt zeroes a few "
                      "bytes before some GEMMs): kernel (kernel nodes writing the same bytes, so "
                      "the next kernel starts as after any kernel) or memset (as captured); list")
                  .as_list()
                  .one_of({"kernel", "memset"}, "graph memset mode")
                  .to_step([](StepConfig& c, const std::string& v) {
                    c.graph_memsets = parse_graph_memsets(v);
                  })
                  .in_config([](const StepConfig& c) {
                    return shown(c.graph_memsets != kDefaults.graph_memsets, "graph_memsets",
                                 std::string(name_of(c.graph_memsets)));
                  })
                  .in_name([](const StepConfig& c) {
                    return named(c.graph_memsets != kDefaults.graph_memsets, "graph_memsets",
                                 std::string(name_of(c.graph_memsets)));
                  }));
  s.push_back(
      Setting("--lr", ValueKind::real, "0.01", "SGD learning rate")
          .with_rule(real_where([](double lr) { return lr > 0; }, "must be a positive number"))
          .to_step(
              [](StepConfig& c, const std::string& v) { c.model.learning_rate = std::stof(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.model.learning_rate != kDefaults.model.learning_rate, "lr",
                         fmt::format("{}", c.model.learning_rate));
          }));
  s.push_back(
      Setting("--momentum", ValueKind::real, "0.9", "SGD momentum")
          .with_rule(real_where([](double m) { return m >= 0 && m < 1; }, "must be in [0, 1)"))
          .to_step([](StepConfig& c, const std::string& v) { c.model.momentum = std::stof(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.model.momentum != kDefaults.model.momentum, "momentum",
                         fmt::format("{}", c.model.momentum));
          }));
  s.push_back(
      Setting("--seed", ValueKind::text, "1", "seed of the synthetic model and data (decimal or 0x hex, 64 bits)")
          .with_rule([](const std::string& v) {
            parse_seed(v);  // throws its own one-line error, as collbench's --seed
            return std::string();
          })
          .to_step([](StepConfig& c, const std::string& v) { c.model.seed = parse_seed(v); }));
  s.push_back(
      Setting("-g,--gpus", ValueKind::text, "", "GPU counts: 1,2,4 or 1-4, as collbench's (default: 1 and all visible)")
          .as_list()
          // collbench's syntax; "all" is the default's second count already.
          .with_rule([](const std::string& v) {
            if (v == "all") return std::string("give counts (the default runs 1 and every visible GPU)");
            parse_gpu_counts(v, 0);  // throws its own one-line error
            return std::string();
          })
          .to_run([](SessionSettings& r, const std::string& v) {
            for (int count : parse_gpu_counts(v, 0)) r.gpu_counts.push_back(count);
          }));
  s.push_back(Setting("--warmup", ValueKind::integer, "10", "untimed steps per measured pass")
                  .with_rule(whole_from(0, INT_MAX, "must not be negative"))
                  .to_run([](SessionSettings& r, const std::string& v) { r.warmup = to_int(v); }));
  s.push_back(
      Setting("--warmup-ms", ValueKind::real, "0",
              "untimed steps continue until this many ms have passed, so that the timed "
              "ones run in the GPUs' steady (power-capped) state; 0: --warmup steps only")
          .with_rule(real_where([](double ms) { return ms >= 0 && ms <= kMaxWarmupMs; },
                                fmt::format("must be from 0 to {:g}", kMaxWarmupMs)))
          .to_run([](SessionSettings& r, const std::string& v) { r.warmup_ms = to_double(v); }));
  s.push_back(Setting("--iters", ValueKind::integer, "50", "timed steps per measured pass")
                  .with_rule(whole_from(1, INT_MAX, "need at least 1 timed step"))
                  .to_run([](SessionSettings& r, const std::string& v) { r.iters = to_int(v); }));
  s.push_back(Setting("--csv", ValueKind::text, "",
                      "write rows to this CSV file (each flushed as measured)")
                  .to_run([](SessionSettings& r, const std::string& v) { r.csv_path = v; }));
  s.push_back(Setting("-c,--check", ValueKind::flag, "false",
                      "run correctness checks (identical weights, DP gradient = 1-GPU gradient)")
                  .to_run([](SessionSettings& r, const std::string& v) { r.check = to_bool(v); }));
  s.push_back(Setting("--list", ValueKind::flag, "false",
                      "list the configurations and algorithms, run nothing")
                  .to_run([](SessionSettings& r, const std::string& v) { r.list = to_bool(v); }));
  s.push_back(Setting("--eager", ValueKind::flag, "false",
                      "launch kernels from the host every step instead of replaying CUDA graphs")
                  .to_run([](SessionSettings& r, const std::string& v) { r.eager = to_bool(v); }));
  s.push_back(Setting("--graph-dot", ValueKind::text, "",
                      "write each captured step graph as Graphviz into this folder "
                      "(dp_step_<shape>_rank<r>.dot: the nodes a GPU trace does not show)")
                  .to_step([](StepConfig& c, const std::string& v) { c.graph_dot_dir = v; }));
  s.push_back(Setting("--allow-skips", ValueKind::flag, "false",
                      "exit 0 even when every configuration was skipped (default: exit 1, so a job on "
                      "the wrong machine fails)")
                  .to_run([](SessionSettings& r, const std::string& v) { r.allow_skips = to_bool(v); }));
  s.push_back(
      Setting("--timeout", ValueKind::real, "120",
              "seconds a measured pass may take before it is abandoned")
          .with_rule(real_where([](double s) { return s > 0 && s <= kMaxTimeoutS; },
                                fmt::format("must be positive, at most {:g} s", kMaxTimeoutS)))
          .to_run([](SessionSettings& r, const std::string& v) { r.timeout_s = to_double(v); }));
  s.push_back(Setting("--launcher", ValueKind::text, "auto", kLauncherOptionHelp)
                  .with_rule([](const std::string& v) {
                    check_launcher_name(v);  // throws its own one-line error
                    return std::string();
                  })
                  .to_run([](SessionSettings& r, const std::string& v) { r.launcher = v; }));
  return s;
}

}  // namespace

Setting::Setting(std::string option_names, ValueKind value_kind, std::string default_text,
                 std::string help_text)
    : option(std::move(option_names)),
      kind(value_kind),
      default_value(std::move(default_text)),
      help(std::move(help_text)) {}

Setting& Setting::as_list() {
  list = true;
  return *this;
}
Setting& Setting::one_of(std::vector<std::string> allowed, std::string what) {
  choices = std::move(allowed);
  noun = std::move(what);
  return *this;
}
Setting& Setting::or_algorithm(std::string what) {
  algorithm = true;
  noun = std::move(what);
  return *this;
}
Setting& Setting::with_rule(std::function<std::string(const std::string&)> why_not) {
  rule = std::move(why_not);
  return *this;
}
Setting& Setting::to_step(std::function<void(StepConfig&, const std::string&)> set) {
  apply = std::move(set);
  return *this;
}
Setting& Setting::to_run(std::function<void(SessionSettings&, const std::string&)> set) {
  apply_run = std::move(set);
  return *this;
}
Setting& Setting::only_for(std::function<bool(const StepConfig&)> applies, std::string otherwise) {
  applies_to = std::move(applies);
  unused_value = std::move(otherwise);
  return *this;
}
Setting& Setting::in_config(std::function<std::string(const StepConfig&)> text) {
  config_text = std::move(text);
  return *this;
}
Setting& Setting::in_name(std::function<std::string(const StepConfig&)> text) {
  name_text = std::move(text);
  return *this;
}

std::string Setting::long_name() const {
  const std::size_t start = option.find("--");
  return option.substr(start, option.find(',', start) - start);
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

const std::vector<Setting>& dp_settings() {
  static const std::vector<Setting> settings = make_settings();
  return settings;
}

const Setting& find_setting(const std::string& name) {
  for (const Setting& setting : dp_settings()) {
    if (setting.long_name() == name) return setting;
  }
  throw std::out_of_range("no collbench_dpstep setting " + name);
}

void check_value(const Setting& setting, const std::string& value,
                 const std::vector<std::string>& known_algorithms) {
  // As the option is first written ("-g" for "-g,--gpus"), which is how users type it.
  const std::string name = setting.option.substr(0, setting.option.find(','));
  long long whole = 0;
  double real = 0;
  if (setting.kind == ValueKind::integer && !whole_number(value, &whole)) {
    throw UsageError(fmt::format("{} {}: not a whole number", name, value));
  }
  if (setting.kind == ValueKind::real && !real_number(value, &real)) {
    throw UsageError(fmt::format("{} {}: not a number", name, value));
  }
  if (!setting.choices.empty() || setting.algorithm) {
    std::vector<std::string> allowed = setting.choices;
    if (setting.algorithm)
      allowed.insert(allowed.end(), known_algorithms.begin(), known_algorithms.end());
    const std::string_view implementation = setting.algorithm ? algorithm_name_of(value) : value;
    if (std::find(allowed.begin(), allowed.end(), implementation) == allowed.end()) {
      throw UsageError(fmt::format("{} {}: unknown {} (expected {})", name, value, setting.noun,
                                   fmt::join(allowed, ", ")));
    }
  }
  // An implementation's settings ("ring:ctas=32") are checked as collbench checks them.
  if (setting.algorithm && value.find(':') != std::string::npos) resolve_algorithm(value);
  if (setting.rule) {
    const std::string why = setting.rule(value);
    if (!why.empty()) throw UsageError(fmt::format("{} {}: {}", name, value, why));
  }
}

void validate(const ModelConfig& model) {
  const std::pair<const char*, std::string> values[] = {
      {"--layers", std::to_string(model.layers)},
      {"--width", std::to_string(model.width)},
      {"--batch", std::to_string(model.batch)},
      {"--dtype", std::string(name_of(model.dtype))},
      {"--lr", fmt::format("{}", model.learning_rate)},
      {"--momentum", fmt::format("{}", model.momentum)},
  };
  for (const auto& [name, value] : values) check_value(find_setting(name), value, {});
  // Refused before anything is allocated: weights, gradients and optimizer state (up to three
  // copies more with master weights) and every layer's activations, per GPU.
  const double parameters = static_cast<double>(model.layers) * model.width * (model.width + 1.0);
  const double activations = (model.layers + 1.0) * model.batch * model.width;
  const double bytes = parameters * (3 * size_of(model.dtype) + (model.master_weights ? 8 : 0)) +
                       2 * activations * size_of(model.dtype);
  if (bytes > kMaxModelBytes) {
    throw UsageError(fmt::format("--layers {} --width {} --batch {}: the model needs {:.0f} GiB per GPU, more than "
                                 "{:.0f} GiB",
                                 model.layers, model.width, model.batch, bytes / (1ull << 30),
                                 kMaxModelBytes / (1ull << 30)));
  }
}

std::string config_string(const StepConfig& config) {
  std::string text;
  for (const Setting& setting : dp_settings()) {
    if (!setting.config_text) continue;
    const std::string item = setting.config_text(config);
    if (!item.empty()) text += (text.empty() ? "" : ";") + item;
  }
  if (!config.algorithm_knobs.empty()) text += ";" + config.algorithm_knobs;
  return text;
}

std::string benchmark_name(const StepConfig& config) {
  std::string name = "dp_step";
  for (const Setting& setting : dp_settings()) {
    if (setting.name_text) name += setting.name_text(config);
  }
  return fmt::format("{}/ranks:{}", name, config.ranks);
}

}  // namespace collbench::dp
