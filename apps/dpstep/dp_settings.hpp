// Every collbench_dpstep setting, declared once in the frame's settings tables
// (frame/settings/setting.hpp): a configuration's (its option, type, default, allowed values,
// help, how it applies, how it shows in the CSV config string and the benchmark name), the
// session's, and the common flags it takes. Parsing, validation, sweep expansion, --help,
// config_string and benchmark_name all read these tables, so adding a setting is adding one
// entry. List-valued settings of a configuration are the sweep's axes (as nvbench's): the plan is
// their cartesian product, nested in table order.
#pragma once

#include <string>
#include <vector>

#include "dp_config.hpp"
#include "frame/settings/common_flags.hpp"
#include "frame/settings/setting.hpp"

namespace collbench::dp {

// --last-bucket-algo's value for "the bucket's own --algo".
inline constexpr const char* kSameAlgo = "same";

// What the session (DpSession) does beside the configurations it sweeps: passes, checks, graphs
// or eager launches. The GPU counts, seed, timeout, CSV, launcher and --list are the common flags
// (frame/settings/common_flags.hpp).
struct SessionSettings {
  int warmup = 10;
  double warmup_ms = 0;  // PassSettings::warmup_ms of every pass
  int iters = 50;
  bool check = false;
  bool eager = false;        // launch every kernel from the host instead of replaying CUDA graphs
  bool allow_skips = false;  // a run in which every configuration was skipped still exits 0
};

using StepSetting = Setting<StepConfig>;
using SessionSetting = Setting<SessionSettings>;

// Every preset, "default" (the plain defaults) first.
const std::vector<Preset>& presets();

// The settings of a configuration, in the order of --help, the config string, the benchmark name
// and the sweep's nesting (the GPU counts, innermost, come after every axis).
const std::vector<StepSetting>& step_settings();
// The session's settings, and the common flags collbench_dpstep takes.
const std::vector<SessionSetting>& session_settings();
const CommonFlags& dp_common_flags();
// The configuration's setting whose long name is `name` ("--algo"); std::out_of_range for none.
const StepSetting& find_setting(const std::string& name);

// Throws UsageError naming the first value of `model` that its setting's rules refuse: for models
// built in code rather than parsed.
void validate(const ModelConfig& model);

// "layers=8;width=4096;batch=2048;dtype=bfloat16;sync=overlap;bucket_mib=25;algo=nccl", then for
// bfloat16 always "optimizer=bf16" or "optimizer=fp32_master" (rows written before the optimizer
// state could be bfloat16 have neither, so they never pair with these), then each other setting
// only when not its default, in table order, then the algorithms' changed knobs. The rank count is
// not part of it: rows of one config at several rank counts share it, which is what weak-scaling
// efficiency is computed over.
std::string config_string(const StepConfig& config);

// Google Benchmark name: "dp_step/overlap/bucket_mib:25/algo:nccl/ranks:4", with each other axis
// ("/comm_schedule:pipelined", "/last_bucket:ring", "/lockstep:1", "/fused_update",
// "/graph_memsets:kernel") before the ranks when not its default.
std::string benchmark_name(const StepConfig& config);

}  // namespace collbench::dp
