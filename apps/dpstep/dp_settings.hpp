// Every collbench_dpstep setting, declared once: its option, type, default, allowed values, help,
// how it applies, and how it shows in the CSV config string and the benchmark name. Parsing,
// validation, sweep expansion, --help, config_string and benchmark_name all read this table, so
// adding a setting is adding one entry. List-valued settings that apply to a configuration are
// the sweep's axes (as nvbench's): the plan is their cartesian product, nested in table order.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dp_config.hpp"

namespace collbench::dp {

// --last-bucket-algo's value for "the bucket's own --algo".
inline constexpr const char* kSameAlgo = "same";

// What the session (DpSession) does beside the configurations it sweeps: GPU counts, passes,
// checks, outputs, launch.
struct SessionSettings {
  std::vector<int> gpu_counts;  // empty: 1 and every visible GPU (rank_counts)
  int warmup = 10;
  double warmup_ms = 0;  // PassSettings::warmup_ms of every pass
  int iters = 50;
  std::string csv_path;
  bool check = false;
  bool list = false;
  bool eager = false;  // launch every kernel from the host instead of replaying CUDA graphs
  bool allow_skips = false;  // a run in which every configuration was skipped still exits 0
  double timeout_s = 120;
  std::string launcher = "auto";  // auto, single, mpi, env (launch_environment.hpp)
};

// How a value is typed: "INT", "FLOAT", "TEXT" in --help; a flag takes no value.
enum class ValueKind { integer, real, text, flag };

struct Setting {
  Setting(std::string option, ValueKind kind, std::string default_value, std::string help);

  // The option as CLI11 takes it: "--bucket-mib", "-g,--gpus", "--master-weights,!--no-..."
  std::string option;
  ValueKind kind;
  std::string default_value;  // as typed ("sync,overlap"); "" for none
  std::string help;
  // Takes a comma-separated list; applied to a configuration, that makes it an axis.
  bool list = false;
  // Text: the values allowed, named `noun` in the error ("unknown sync mode 'x' (expected ...)");
  // with `algorithm`, also every all-reduce implementation of the registry.
  std::vector<std::string> choices;
  bool algorithm = false;
  std::string noun = "value";
  // Why a value (of the right type and among the choices) is not allowed; "" when it is.
  std::function<std::string(const std::string& value)> rule;
  // How one value applies: to a configuration, or to the run.
  std::function<void(StepConfig&, const std::string& value)> apply;
  std::function<void(SessionSettings&, const std::string& value)> apply_run;
  // An axis that means nothing for some configurations (bucket sizes under sync): those get one
  // configuration, with `unused_value` applied.
  std::function<bool(const StepConfig&)> applies_to;
  std::string unused_value;
  // The config string's "key=value" for a configuration ("" leaves it out), and the benchmark
  // name's part ("/key:value", "" for none).
  std::function<std::string(const StepConfig&)> config_text;
  std::function<std::string(const StepConfig&)> name_text;

  // Builders, so that each table entry reads as a sentence.
  Setting& as_list();
  Setting& one_of(std::vector<std::string> allowed, std::string what);
  Setting& or_algorithm(std::string what);
  Setting& with_rule(std::function<std::string(const std::string&)> why_not);
  Setting& to_step(std::function<void(StepConfig&, const std::string&)> set);
  Setting& to_run(std::function<void(SessionSettings&, const std::string&)> set);
  Setting& only_for(std::function<bool(const StepConfig&)> applies, std::string otherwise);
  Setting& in_config(std::function<std::string(const StepConfig&)> text);
  Setting& in_name(std::function<std::string(const StepConfig&)> text);

  // The long option name ("--gpus" for "-g,--gpus", "--master-weights" for the flag pair).
  std::string long_name() const;
  bool is_axis() const { return list && static_cast<bool>(apply); }
};

// A named set of setting values (--preset NAME): defaults that options given on the command line
// override, each option as a whole (a given --algo replaces the preset's list).
struct Preset {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> values;  // long option name, value as typed
};
// Every preset, "default" (the plain defaults) first.
const std::vector<Preset>& presets();

// Every setting, in the order of --help, the config string, the benchmark name and the sweep's
// nesting (the GPU counts, innermost, come after every axis).
const std::vector<Setting>& dp_settings();
// The setting whose long name is `name` ("--algo"); std::out_of_range for none.
const Setting& find_setting(const std::string& name);

// Throws UsageError, one line naming the value, when `value` is not a valid value of `setting`
// (`known_algorithms`: the registry's all-reduce implementations).
void check_value(const Setting& setting, const std::string& value,
                 const std::vector<std::string>& known_algorithms);

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
