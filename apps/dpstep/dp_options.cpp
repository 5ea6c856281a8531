// collbench_dpstep's CLI11 parser, presets and sweep expansion, all from the settings table.
#include "dp_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <string>

#include "algorithms/algorithm_registry.hpp"
#include "core/algorithm.hpp"
#include "core/errors.hpp"
#include "frame/command_line.hpp"

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

std::vector<std::string> deduplicated(const std::vector<std::string>& values) {
  std::vector<std::string> unique;
  for (const std::string& v : values) {
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  }
  return unique;
}

const char* type_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::integer:
      return "INT";
    case ValueKind::real:
      return "FLOAT";
    default:
      return "TEXT";
  }
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

// "Presets (...):" and one line per preset with the options it sets.
std::string preset_help() {
  std::string text = "Presets (--preset NAME; options given on the command line override them):";
  for (const Preset& preset : presets()) {
    std::string options;
    for (const auto& [option, value] : preset.values)
      options += fmt::format("{}{} {}", options.empty() ? "" : " ", option, value);
    text += fmt::format("\n  {}: {}{}{}", preset.name, preset.description,
                        options.empty() ? "" : ": ", options);
  }
  return text;
}

// What the command line gave each setting, bound to CLI11 by table index.
struct CommandLine {
  explicit CommandLine(std::size_t settings)
      : options(settings), single(settings), lists(settings), flags(new bool[settings]()) {}
  std::vector<CLI::Option*> options;
  std::vector<std::string> single;
  std::vector<std::vector<std::string>> lists;
  std::unique_ptr<bool[]> flags;
  std::string preset = "default";
};

void add_options(CLI::App& app, CommandLine& given) {
  const std::vector<Setting>& settings = dp_settings();
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const Setting& s = settings[i];
    if (s.kind == ValueKind::flag) {
      given.options[i] = app.add_flag(s.option, given.flags[i], s.help);
      continue;
    }
    CLI::Option* option = s.list ? app.add_option(s.option, given.lists[i], s.help)->delimiter(',')
                                 : app.add_option(s.option, given.single[i], s.help);
    option->type_name(type_name(s.kind));
    if (!s.default_value.empty()) option->default_str(s.default_value);
    given.options[i] = option;
  }
  app.add_option("--preset", given.preset, "a named set of defaults (below)")
      ->capture_default_str();
  app.footer(preset_help());
}

// Setting `i`'s values as typed: the command line's, else the preset's, else the default.
std::vector<std::string> values_of(std::size_t i, const CommandLine& given, const Preset& preset) {
  const Setting& s = dp_settings()[i];
  if (given.options[i]->count() > 0) {
    if (s.kind == ValueKind::flag) return {given.flags[i] ? "true" : "false"};
    return s.list ? given.lists[i] : std::vector<std::string>{given.single[i]};
  }
  std::string text = s.default_value;
  for (const auto& [option, value] : preset.values) {
    if (option == s.long_name()) text = value;
  }
  if (text.empty()) return {};
  return s.list ? split(text, ',') : std::vector<std::string>{text};
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

DpOptions parse_dp_options(const std::vector<std::string>& args,
                           const std::vector<std::string>& known_algorithms) {
  const std::vector<Setting>& settings = dp_settings();
  CommandLine given(settings.size());
  CLI::App app{"collbench_dpstep: data-parallel training-step benchmark (MLP, gradient all-reduce)",
               "collbench_dpstep"};
  add_options(app, given);
  try {
    parse_arguments(app, args);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(app.help());
  }

  const Preset& preset = find_preset(given.preset);
  DpOptions o;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const Setting& s = settings[i];
    const std::vector<std::string> values = deduplicated(values_of(i, given, preset));
    for (const std::string& value : values) check_value(s, value, known_algorithms);
    if (s.is_axis()) {
      if (values.empty()) throw UsageError(fmt::format("{}: give at least one", s.long_name()));
      o.axes.push_back({&s, values});
    } else {
      for (const std::string& value : values) {
        if (s.apply) s.apply(o.base, value);
        if (s.apply_run) s.apply_run(o.run, value);
      }
    }
  }
  require_fusable_last_bucket(o);
  return o;
}

std::vector<int> rank_counts(const DpOptions& options, int visible_gpus) {
  std::vector<int> counts = options.run.gpu_counts;
  if (counts.empty()) counts = {1, std::max(1, visible_gpus)};
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::vector<StepConfig> expand_plan(const DpOptions& options, int visible_gpus) {
  std::vector<StepConfig> plan = {options.base};
  for (const Axis& axis : options.axes) {
    const Setting& setting = *axis.setting;
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
