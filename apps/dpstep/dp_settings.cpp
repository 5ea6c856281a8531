// The table of collbench_dpstep's settings, value checks, the config string and benchmark names.
#include "dp_settings.hpp"

#include <fmt/format.h>

#include <climits>
#include <cmath>

#include "algorithms/algorithm_registry.hpp"
#include "core/errors.hpp"
#include "schedule/step_schedule.hpp"

namespace collbench::dp {
namespace {

// An hour of warm-up is more than any GPU needs to reach its steady state.
constexpr double kMaxWarmupMs = 3.6e6;
// More memory than any GPU has: such a model is a typo, refused before it is allocated.
constexpr double kMaxModelBytes = 4.0 * (1ull << 40);

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

// Numbers from `min` to `max`, for Setting::must.
std::function<bool(double)> in_range(double min, double max) {
  return [min, max](double value) { return value >= min && value <= max; };
}

// "key=value" when `differs`, else nothing.
std::string shown(bool differs, const char* key, const std::string& value) {
  return differs ? fmt::format("{}={}", key, value) : std::string();
}
std::string named(bool differs, const char* key, const std::string& value) {
  return differs ? fmt::format("/{}:{}", key, value) : std::string();
}

const StepConfig kDefaults;

std::vector<StepSetting> make_step_settings() {
  std::vector<StepSetting> s;
  s.push_back(
      StepSetting("--layers", ValueKind::integer, "8", "MLP layers")
          .must(in_range(1, INT_MAX), "need at least 1 layer")
          .to([](StepConfig& c, const std::string& v) { c.model.layers = to_int(v); })
          .in_config([](const StepConfig& c) { return fmt::format("layers={}", c.model.layers); }));
  s.push_back(
      StepSetting("--width", ValueKind::integer, "4096", "layer width H (multiple of 8)")
          // Multiples of 8 keep every row 16-byte aligned, as cuBLASLt's tensor-core kernels need.
          .must(
              [](double width) {
                return width >= 8 && width <= INT_MAX && std::fmod(width, 8) == 0;
              },
              "must be a positive multiple of 8")
          .to([](StepConfig& c, const std::string& v) { c.model.width = to_int(v); })
          .in_config([](const StepConfig& c) { return fmt::format("width={}", c.model.width); }));
  s.push_back(
      StepSetting("--batch", ValueKind::integer, "2048", "samples per GPU (weak scaling)")
          .must(in_range(1, INT_MAX), "need at least 1 sample per GPU")
          .to([](StepConfig& c, const std::string& v) { c.model.batch = to_int(v); })
          .in_config([](const StepConfig& c) { return fmt::format("batch={}", c.model.batch); }));
  s.push_back(
      StepSetting("-d,--dtype", ValueKind::text, "bfloat16",
                  "model data types: bfloat16, float (as collbench's -d)")
          .as_list()
          .one_of({"bfloat16", "float"}, "model data type")
          .to([](StepConfig& c, const std::string& v) { c.model.dtype = parse_data_type(v); })
          .in_config(
              [](const StepConfig& c) { return fmt::format("dtype={}", name_of(c.model.dtype)); })
          .in_name([](const StepConfig& c) {
            return named(c.model.dtype != kDefaults.model.dtype, "dtype",
                         std::string(name_of(c.model.dtype)));
          }));
  s.push_back(
      StepSetting("--sync", ValueKind::text, "sync,overlap",
                  "gradient sync modes: sync, overlap, ps, sharded")
          .as_list()
          .one_of({"sync", "overlap", "ps", "sharded"}, "sync mode")
          .to([](StepConfig& c, const std::string& v) { c.scheme = parse_sync_scheme(v); })
          .in_config([](const StepConfig& c) { return fmt::format("sync={}", name_of(c.scheme)); })
          .in_name([](const StepConfig& c) { return fmt::format("/{}", name_of(c.scheme)); }));
  s.push_back(StepSetting("--bucket-mib", ValueKind::real, "25",
                          "bucket caps in MiB (overlap, ps, sharded)")
                  .as_list()
                  .must([](double mib) { return mib > 0; }, "must be a positive size")
                  .to([](StepConfig& c, const std::string& v) { c.bucket_mib = to_double(v); })
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
      StepSetting(
          "--algo", ValueKind::text, "nccl",
          "all-reduce implementations, with optional settings as collbench's (ring:ctas=32)")
          .as_list()
          .or_algorithm("all-reduce algorithm")
          .to([](StepConfig& c, const std::string& v) { c.algo = v; })
          // The settings follow in the config string's knobs (algorithm_knobs).
          .in_config(
              [](const StepConfig& c) { return "algo=" + std::string(algorithm_name_of(c.algo)); })
          .in_name([](const StepConfig& c) { return "/algo:" + c.algo; }));
  s.push_back(
      StepSetting("--master-weights,!--no-master-weights", ValueKind::flag, "false",
                  "bfloat16: float32 master weights and momentum (default: bf16 weights and "
                  "momentum, as PyTorch's SGD on a bf16 model)")
          .to([](StepConfig& c, const std::string& v) { c.model.master_weights = to_bool(v); })
          .in_config([](const StepConfig& c) {
            if (c.model.dtype != DataType::bfloat16) return std::string();
            return std::string(c.model.master_weights ? "optimizer=fp32_master" : "optimizer=bf16");
          }));
  s.push_back(StepSetting("--epilogue", ValueKind::text, "auto",
                          "bias/ReLU: auto, fused (cuBLASLt epilogues) or unfused")
                  .one_of({"auto", "fused", "unfused"}, "epilogue mode")
                  .to([](StepConfig& c, const std::string& v) {
                    c.model.epilogue = parse_epilogue_mode(v);
                  })
                  .in_config([](const StepConfig& c) {
                    return shown(c.model.epilogue != kDefaults.model.epilogue, "epilogue",
                                 std::string(name_of(c.model.epilogue)));
                  }));
  s.push_back(StepSetting("--nccl-max-ctas", ValueKind::integer, "0",
                          "NCCL maxCTAs for the communicators (0: NCCL's choice)")
                  .must(in_range(0, INT_MAX), "must not be negative")
                  .to([](StepConfig& c, const std::string& v) { c.nccl_max_ctas = to_int(v); })
                  .in_config([](const StepConfig& c) {
                    return shown(c.nccl_max_ctas > 0, "nccl_max_ctas",
                                 std::to_string(c.nccl_max_ctas));
                  }));
  s.push_back(StepSetting("--gemm-sm-margin", ValueKind::integer, "0",
                          "SMs backward GEMMs leave free for communication, on 2+ GPUs (0: none)")
                  .must(in_range(0, INT_MAX), "must not be negative")
                  .to([](StepConfig& c, const std::string& v) { c.gemm_sm_margin = to_int(v); })
                  .in_config([](const StepConfig& c) {
                    return shown(c.gemm_sm_margin > 0, "gemm_sm_margin",
                                 std::to_string(c.gemm_sm_margin));
                  }));
  s.push_back(
      StepSetting("--comm-lanes", ValueKind::integer, "2",
                  "communication streams buckets alternate over, for algorithms whose "
                  "instances run concurrently (copy_engine; up to 4)")
          .must(in_range(1, kMaxCommLanes), fmt::format("must be from 1 to {}", kMaxCommLanes))
          .to([](StepConfig& c, const std::string& v) { c.comm_lanes = to_int(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.comm_lanes != kDefaults.comm_lanes, "comm_lanes",
                         std::to_string(c.comm_lanes));
          }));
  s.push_back(
      StepSetting("--comm-schedule", ValueKind::text, "lanes",
                  "copy_engine's buckets: lanes (each all-reduce whole on its lane) or "
                  "pipelined (in parts: one stream carries every bucket's copies in one "
                  "order, another reduces); list")
          .as_list()
          .one_of({"lanes", "pipelined"}, "communication schedule")
          .to([](StepConfig& c, const std::string& v) { c.comm_schedule = parse_comm_schedule(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.comm_schedule != kDefaults.comm_schedule, "comm_schedule",
                         std::string(name_of(c.comm_schedule)));
          })
          .in_name([](const StepConfig& c) {
            return named(c.comm_schedule != kDefaults.comm_schedule, "comm_schedule",
                         std::string(name_of(c.comm_schedule)));
          }));
  s.push_back(StepSetting("--last-bucket-algo", ValueKind::text, kSameAlgo,
                          "the last bucket's all-reduce implementation (layer 0's gradients, after "
                          "backward's last GEMM, when the SMs are free): a registry name or same "
                          "(--algo's); list")
                  .as_list()
                  .one_of({kSameAlgo}, "all-reduce algorithm")
                  .or_algorithm("all-reduce algorithm")
                  .to([](StepConfig& c, const std::string& v) {
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
      StepSetting("--lockstep", ValueKind::integer, "0",
                  "N: a barrier across the GPUs before every Nth backward layer (from the "
                  "first), on the compute streams, so that every GPU starts the copies its "
                  "GEMMs release at the same time (2+ GPUs that reach one another's "
                  "memory); 0: none; list")
          .as_list()
          .must(in_range(0, INT_MAX), "must not be negative")
          .to([](StepConfig& c, const std::string& v) { c.lockstep = to_int(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.lockstep != kDefaults.lockstep, "lockstep", std::to_string(c.lockstep));
          })
          .in_name([](const StepConfig& c) {
            return named(c.lockstep != kDefaults.lockstep, "lockstep", std::to_string(c.lockstep));
          }));
  s.push_back(
      StepSetting("--fuse-last-update", ValueKind::integer, "0",
                  "1: the last bucket's SGD update runs inside its all-reduce (needs "
                  "--last-bucket-algo twoshot: each rank updates its own chunk and stores "
                  "the weights into every rank's copy); 0: after it; list")
          .as_list()
          .must(in_range(0, 1), "must be 0 or 1")
          .to([](StepConfig& c, const std::string& v) { c.fuse_last_update = to_int(v) == 1; })
          .in_config(
              [](const StepConfig& c) { return shown(c.fuse_last_update, "fused_update", "1"); })
          .in_name([](const StepConfig& c) {
            return std::string(c.fuse_last_update ? "/fused_update" : "");
          }));
  s.push_back(
      StepSetting("--graph-memsets", ValueKind::text, "memset",
                  "the memset nodes a step's CUDA graph captures (cuBLASLt zeroes a few "
                  "bytes before some GEMMs): kernel (kernel nodes writing the same bytes, so "
                  "the next kernel starts as after any kernel) or memset (as captured); list")
          .as_list()
          .one_of({"kernel", "memset"}, "graph memset mode")
          .to([](StepConfig& c, const std::string& v) { c.graph_memsets = parse_graph_memsets(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.graph_memsets != kDefaults.graph_memsets, "graph_memsets",
                         std::string(name_of(c.graph_memsets)));
          })
          .in_name([](const StepConfig& c) {
            return named(c.graph_memsets != kDefaults.graph_memsets, "graph_memsets",
                         std::string(name_of(c.graph_memsets)));
          }));
  s.push_back(
      StepSetting("--lr", ValueKind::real, "0.01", "SGD learning rate")
          .must([](double lr) { return lr > 0; }, "must be a positive number")
          .to([](StepConfig& c, const std::string& v) { c.model.learning_rate = std::stof(v); })
          .in_config([](const StepConfig& c) {
            return shown(c.model.learning_rate != kDefaults.model.learning_rate, "lr",
                         fmt::format("{}", c.model.learning_rate));
          }));
  s.push_back(StepSetting("--momentum", ValueKind::real, "0.9", "SGD momentum")
                  .must([](double m) { return m >= 0 && m < 1; }, "must be in [0, 1)")
                  .to([](StepConfig& c, const std::string& v) { c.model.momentum = std::stof(v); })
                  .in_config([](const StepConfig& c) {
                    return shown(c.model.momentum != kDefaults.model.momentum, "momentum",
                                 fmt::format("{}", c.model.momentum));
                  }));
  s.push_back(StepSetting("--graph-dot", ValueKind::text, "",
                          "write each captured step graph as Graphviz into this folder "
                          "(dp_step_<shape>_rank<r>.dot: the nodes a GPU trace does not show)")
                  .to([](StepConfig& c, const std::string& v) { c.graph_dot_dir = v; }));
  return s;
}

std::vector<SessionSetting> make_session_settings() {
  std::vector<SessionSetting> s;
  s.push_back(
      SessionSetting("--warmup", ValueKind::integer, "10", "untimed steps per measured pass")
          .must(in_range(0, INT_MAX), "must not be negative")
          .to([](SessionSettings& r, const std::string& v) { r.warmup = to_int(v); }));
  s.push_back(
      SessionSetting("--warmup-ms", ValueKind::real, "0",
                     "untimed steps continue until this many ms have passed, so that the timed "
                     "ones run in the GPUs' steady (power-capped) state; 0: --warmup steps only")
          .must([](double ms) { return ms >= 0 && ms <= kMaxWarmupMs; },
                fmt::format("must be from 0 to {:g}", kMaxWarmupMs))
          .to([](SessionSettings& r, const std::string& v) { r.warmup_ms = to_double(v); }));
  s.push_back(SessionSetting("--iters", ValueKind::integer, "50", "timed steps per measured pass")
                  .must(in_range(1, INT_MAX), "need at least 1 timed step")
                  .to([](SessionSettings& r, const std::string& v) { r.iters = to_int(v); }));
  s.push_back(
      SessionSetting("-c,--check", ValueKind::flag, "false",
                     "run correctness checks (identical weights, DP gradient = 1-GPU gradient)")
          .to([](SessionSettings& r, const std::string& v) { r.check = to_bool(v); }));
  s.push_back(
      SessionSetting("--eager", ValueKind::flag, "false",
                     "launch kernels from the host every step instead of replaying CUDA graphs")
          .to([](SessionSettings& r, const std::string& v) { r.eager = to_bool(v); }));
  s.push_back(
      SessionSetting(
          "--allow-skips", ValueKind::flag, "false",
          "exit 0 even when every configuration was skipped (default: exit 1, so a job on "
          "the wrong machine fails)")
          .to([](SessionSettings& r, const std::string& v) { r.allow_skips = to_bool(v); }));
  return s;
}

}  // namespace

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

const std::vector<StepSetting>& step_settings() {
  static const std::vector<StepSetting> settings = make_step_settings();
  return settings;
}

const std::vector<SessionSetting>& session_settings() {
  static const std::vector<SessionSetting> settings = make_session_settings();
  return settings;
}

const CommonFlags& dp_common_flags() {
  static const CommonFlags flags = {
      {CommonFlag::gpu_counts, "",
       "GPU counts: 1,2,4 or 1-4, as collbench's (default: 1 and all visible)",
       // The default already runs every visible GPU (and 1).
       [](const std::string& v) {
         return v == "all" ? std::string(": give counts (the default runs 1 and every visible GPU)")
                           : std::string();
       }},
      {CommonFlag::seed, "1", "seed of the synthetic model and data (decimal or 0x hex, 64 bits)"},
      {CommonFlag::timeout, "120", "seconds a measured pass may take before it is abandoned"},
      {CommonFlag::csv, "", "write rows to this CSV file (each flushed as measured)"},
      {CommonFlag::launcher, "", ""},
      {CommonFlag::list, "", "list the configurations and algorithms, run nothing"},
  };
  return flags;
}

const StepSetting& find_setting(const std::string& name) {
  return collbench::find_setting(step_settings(), name);
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
  for (const auto& [name, value] : values) check_value(find_setting(name), value);
  // Refused before anything is allocated: weights, gradients and optimizer state (up to three
  // copies more with master weights) and every layer's activations, per GPU.
  const double parameters = static_cast<double>(model.layers) * model.width * (model.width + 1.0);
  const double activations = (model.layers + 1.0) * model.batch * model.width;
  const double bytes = parameters * (3 * size_of(model.dtype) + (model.master_weights ? 8 : 0)) +
                       2 * activations * size_of(model.dtype);
  if (bytes > kMaxModelBytes) {
    throw UsageError(fmt::format(
        "--layers {} --width {} --batch {}: the model needs {:.0f} GiB per GPU, more than "
        "{:.0f} GiB",
        model.layers, model.width, model.batch, bytes / (1ull << 30),
        kMaxModelBytes / (1ull << 30)));
  }
}

std::string config_string(const StepConfig& config) {
  std::string text;
  for (const StepSetting& setting : step_settings()) {
    if (!setting.config_text) continue;
    const std::string item = setting.config_text(config);
    if (!item.empty()) text += (text.empty() ? "" : ";") + item;
  }
  if (!config.algorithm_knobs.empty()) text += ";" + config.algorithm_knobs;
  return text;
}

std::string benchmark_name(const StepConfig& config) {
  std::string name = "dp_step";
  for (const StepSetting& setting : step_settings()) {
    if (setting.name_text) name += setting.name_text(config);
  }
  return fmt::format("{}/ranks:{}", name, config.ranks);
}

}  // namespace collbench::dp
