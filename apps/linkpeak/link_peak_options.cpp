// collbench_linkpeak's settings table and the common flags it takes.
#include "link_peak_options.hpp"

#include "core/byte_size.hpp"
#include "frame/settings/command_line.hpp"

namespace collbench::link_peak {
namespace {

// Bounds that turn a typo into an error instead of a run that never ends.
constexpr int kMaxIterations = 1'000'000;

// `names` (checked against the setting's choices) as the values of `all`, in the order given.
template <typename Value>
std::vector<Value> chosen(const std::vector<std::string>& names, const std::vector<Value>& all,
                          const char* (*name_of)(Value)) {
  std::vector<Value> values;
  for (const std::string& name : names) {
    for (Value value : all) {
      if (name == name_of(value)) values.push_back(value);
    }
  }
  return values;
}

std::vector<Setting<LinkPeakOptions>> make_settings() {
  using O = LinkPeakOptions;
  using T = ValueKind;
  std::vector<Setting<O>> s;
  s.push_back(Setting<O>("--bytes", T::text, "1G", "Bytes per copy (K/M/G suffixes)")
                  .to([](O& o, const std::string& v) { o.bytes = parse_byte_size(v, "--bytes"); }));
  s.push_back(Setting<O>("--iters", T::integer, "20",
                         "Timed iterations per measurement (the median is reported)")
                  .within(1, kMaxIterations)
                  .to([](O& o, const std::string& v) { o.iters = std::stoi(v); }));
  s.push_back(Setting<O>("--warmup", T::integer, "3", "Untimed iterations before them")
                  .within(0, kMaxIterations)
                  .to([](O& o, const std::string& v) { o.warmup = std::stoi(v); }));
  s.push_back(
      Setting<O>("--methods", T::text, "copy_engine,sm_copy",
                 "copy_engine, sm_copy (comma separated)")
          .as_list()
          .one_of({"copy_engine", "sm_copy"}, "copy method")
          .to_all([](O& o, const std::vector<std::string>& v) {
            o.methods = chosen(v, {CopyMethod::copy_engine, CopyMethod::sm_copy}, method_name);
          }));
  s.push_back(Setting<O>("--directions", T::text, "uni,bi,all", "uni, bi, all (comma separated)")
                  .as_list()
                  .one_of({"uni", "bi", "all"}, "direction")
                  .to_all([](O& o, const std::vector<std::string>& v) {
                    o.directions =
                        chosen(v, {Direction::uni, Direction::bi, Direction::all}, direction_name);
                  }));
  return s;
}

const std::vector<Setting<LinkPeakOptions>>& link_peak_settings() {
  static const std::vector<Setting<LinkPeakOptions>> settings = make_settings();
  return settings;
}

const CommonFlags& link_peak_common_flags() {
  static const CommonFlags flags = {
      {CommonFlag::gpu_count, "0", "Use GPUs 0..N-1 (0: every visible GPU)"},
      {CommonFlag::csv, "", "Write one CSV row per transfer (collbench's report schema)"},
  };
  return flags;
}

void declare(CommandLine& line, LinkPeakOptions& options) {
  line.add(link_peak_settings(), options);
  line.add(common_settings(link_peak_common_flags()), options.common);
}

const CommandLineDeclaration<LinkPeakOptions> kCommandLine = {
    "collbench_linkpeak",
    "collbench_linkpeak: GPU-to-GPU copy bandwidth (copy engine and SM copy kernel) between every "
    "pair of GPUs, one direction, both directions and all GPUs at once; the best one-direction "
    "copy-engine figure is the per-GPU link peak for collbench --link-peak.",
    declare};

}  // namespace

std::string link_peak_help() {
  return kCommandLine.help();
}

LinkPeakOptions parse_link_peak_options(const std::vector<std::string>& args) {
  return kCommandLine.parse(args);
}

}  // namespace collbench::link_peak
