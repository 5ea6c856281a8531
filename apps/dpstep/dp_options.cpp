// collbench_dpstep's command line and sweep expansion, both from the settings tables.
#include "dp_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "algorithms/algorithm_registry.hpp"
#include "core/algorithm.hpp"
#include "core/errors.hpp"
#include "frame/settings/algorithm_tunings.hpp"
#include "frame/settings/value_parsers.hpp"

namespace collbench::dp {
namespace {

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

void declare(CommandLine& line, DpOptions& options) {
  line.add(step_settings(), options.base);
  line.add(session_settings(), options.session);
  line.add(common_settings(dp_common_flags()), options.common, "Run and output");
  line.add_presets(presets());
  line.add_footer(algorithm_tunings_help());
}

void require_fusable_last_bucket(const DpOptions& o) {
  const std::vector<std::string>& fused = o.values("--fuse-last-update");
  const bool any_fused = std::any_of(fused.begin(), fused.end(),
                                     [](const std::string& v) { return std::stoi(v) == 1; });
  const std::vector<std::string>& last = o.values("--last-bucket-algo");
  const bool all_fuse = std::all_of(last.begin(), last.end(), [](const std::string& name) {
    const AlgorithmEntry* entry = find_algorithm(algorithm_name_of(name), OpKind::all_reduce);
    return entry != nullptr && entry->capabilities.fused_update;
  });
  if (any_fused && !all_fuse) {
    throw UsageError(
        "--fuse-last-update 1: needs a --last-bucket-algo that fuses the update (twoshot), in "
        "every configuration");
  }
}

const CommandLineDeclaration<DpOptions> kCommandLine = {
    "collbench_dpstep",
    "collbench_dpstep: data-parallel training-step benchmark (MLP, gradient all-reduce)", declare};

}  // namespace

std::string implementation_knobs(const std::vector<std::string>& implementations) {
  std::vector<std::string> knobs;
  for (const std::string& implementation : implementations) {
    const std::string config = resolve_algorithm(implementation).config();
    if (config.empty()) continue;
    // Knobs several implementations share (peer_launch) appear once.
    for (std::string& knob : split(config, ';')) {
      if (std::find(knobs.begin(), knobs.end(), knob) == knobs.end())
        knobs.push_back(std::move(knob));
    }
  }
  return fmt::format("{}", fmt::join(knobs, ";"));
}

const std::vector<std::string>& DpOptions::values(const std::string& name) const {
  for (const Axis& axis : axes) {
    if (axis.setting->long_name() == name) return axis.values;
  }
  throw std::out_of_range(name + " is not an axis of the sweep");
}

std::string dp_options_help() {
  return kCommandLine.help();
}

DpOptions parse_dp_options(const std::vector<std::string>& args) {
  return kCommandLine.parse(args, [](DpOptions& o, const CommandLine& line) {
    for (const StepSetting& setting : step_settings()) {
      if (!setting.is_axis()) continue;
      const std::vector<std::string>& values = line.values(setting.long_name());
      if (values.empty())
        throw UsageError(fmt::format("{}: give at least one", setting.long_name()));
      o.axes.push_back({&setting, values});
    }
    o.base.model.seed = o.common.seed;
    require_fusable_last_bucket(o);
  });
}

std::vector<int> rank_counts(const DpOptions& options, int visible_gpus) {
  std::vector<int> counts = options.common.gpu_counts.empty()
                                ? std::vector<int>{1, std::max(1, visible_gpus)}
                                : parse_gpu_counts(options.common.gpu_counts, visible_gpus);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::vector<StepConfig> expand_plan(const DpOptions& options, int visible_gpus) {
  std::vector<StepConfig> plan = {options.base};
  for (const Axis& axis : options.axes) {
    const StepSetting& setting = *axis.setting;
    std::vector<StepConfig> expanded;
    for (const StepConfig& config : plan) {
      const bool applies = !setting.applies_to || setting.applies_to(config);
      for (const std::string& value :
           applies ? axis.values : std::vector<std::string>{setting.unused_value}) {
        expanded.push_back(config);
        setting.apply(expanded.back(), value);
      }
    }
    plan = std::move(expanded);
  }
  std::vector<StepConfig> runs;
  for (const StepConfig& config : plan) {
    for (int ranks : rank_counts(options, visible_gpus)) {
      // A model no GPU could hold is refused here, before anything is allocated (--list too).
      validate(config.model);
      runs.push_back(config);
      StepConfig& run = runs.back();
      run.ranks = ranks;
      run.algorithm_knobs = implementation_knobs(
          run.last_bucket_algo.empty() ? std::vector<std::string>{run.algo}
                                       : std::vector<std::string>{run.algo, run.last_bucket_algo});
    }
  }
  return runs;
}

}  // namespace collbench::dp
