// The collbench_dpstep command line and the sweep plan it expands to, both from the settings
// table (dp_settings.hpp): one StepConfig per combination of the axes' values, nested in table
// order, with the rank counts innermost and ascending, so the 1-GPU baseline of every config is
// measured before the configs that are compared with it.
#pragma once

#include <string>
#include <vector>

#include "dp_config.hpp"
#include "dp_settings.hpp"
#include "frame/settings/command_line.hpp"

namespace collbench::dp {

// The changed knobs of each implementation (the registry's algorithm_config of each), joined with
// ';', each knob once: what a row of --algo copy_engine --last-bucket-algo ring reports.
std::string implementation_knobs(const std::vector<std::string>& implementations);

// One axis of the sweep: a list-valued setting and its values as typed, each once.
struct Axis {
  const StepSetting* setting;
  std::vector<std::string> values;
};

struct DpOptions {
  StepConfig base;         // every setting that is not an axis, applied
  std::vector<Axis> axes;  // in table order
  SessionSettings session;
  CommonSettings common;  // -g, --seed, --timeout, --csv, --launcher, --list
  // The values of axis `name` ("--algo"); std::out_of_range for a setting that is not an axis.
  const std::vector<std::string>& values(const std::string& name) const;
};

// Parses the arguments Google Benchmark left (args[0] is the program). Throws UsageError with a
// one-line message for a bad option or value, HelpRequested for --help.
DpOptions parse_dp_options(const std::vector<std::string>& args);
// The options' --help text.
std::string dp_options_help();

// 1 and `visible_gpus` (deduplicated) when no -g was given. With one process per GPU,
// `visible_gpus` is the number of processes.
std::vector<int> rank_counts(const DpOptions& options, int visible_gpus);

// Every configuration to run, in run order (see above). Throws UsageError for a bad algorithm
// knob in the environment (read here, before anything runs).
std::vector<StepConfig> expand_plan(const DpOptions& options, int visible_gpus);

}  // namespace collbench::dp
