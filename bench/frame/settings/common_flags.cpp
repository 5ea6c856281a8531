// The one declaration of each common flag.
#include "frame/settings/common_flags.hpp"

#include <fmt/format.h>

#include "frame/settings/value_parsers.hpp"
#include "launch/launch_environment.hpp"

namespace collbench {
namespace {

// The flag's declaration: names, type, rule, help and where its value goes.
Setting<CommonSettings> declaration(CommonFlag flag) {
  using S = CommonSettings;
  switch (flag) {
    case CommonFlag::gpu_counts:
      // The syntax only: counts are checked against the GPUs when the plan is made.
      return Setting<S>("-g,--gpus", ValueKind::text, "", "GPU counts: 2,4 or 1-4 or all")
          .with_rule([](const std::string& v) {
            parse_gpu_counts(v, 1);  // throws its own one-line error
            return std::string();
          })
          .to([](S& s, const std::string& v) { s.gpu_counts = v; });
    case CommonFlag::gpu_count:
      return Setting<S>("--gpus", ValueKind::integer, "0", "Use GPUs 0..N-1 (0: every visible GPU)")
          .within(0, kMaxGpuCount)
          .to([](S& s, const std::string& v) { s.gpu_count = std::stoi(v); });
    case CommonFlag::seed:
      return Setting<S>("--seed", ValueKind::text, "", "Seed (decimal or 0x hex, 64 bits)")
          .with_rule([](const std::string& v) {
            parse_seed(v);  // throws its own one-line error
            return std::string();
          })
          .to([](S& s, const std::string& v) { s.seed = parse_seed(v); });
    case CommonFlag::timeout:
      return Setting<S>("--timeout", ValueKind::real, "", "Seconds a unit of work may take")
          .above(0, kMaxTimeoutS, fmt::format("above 0 and at most {} seconds", kMaxTimeoutS))
          .to([](S& s, const std::string& v) { s.timeout_s = std::stod(v); });
    case CommonFlag::csv:
      return Setting<S>("--csv", ValueKind::text, "", "Write report rows to this CSV file")
          .to([](S& s, const std::string& v) { s.csv_path = v; });
    case CommonFlag::launcher:
      return Setting<S>("--launcher", ValueKind::text, "auto", kLauncherOptionHelp)
          .with_rule([](const std::string& v) {
            check_launcher_name(v);  // throws its own one-line error
            return std::string();
          })
          .to([](S& s, const std::string& v) { s.launcher = v; });
    case CommonFlag::list:
      return Setting<S>("--list", ValueKind::flag, "",
                        "List what this command line would run, without touching a GPU")
          .to([](S& s, const std::string& v) {
            s.list = v == "true";
            s.list_offered = true;
          });
  }
  throw std::logic_error("unknown common flag");
}

}  // namespace

std::vector<Setting<CommonSettings>> common_settings(const CommonFlags& flags) {
  std::vector<Setting<CommonSettings>> settings;
  for (const CommonFlagChoice& choice : flags) {
    Setting<CommonSettings> setting = declaration(choice.flag);
    if (!choice.default_value.empty()) setting.default_value = choice.default_value;
    if (!choice.meaning.empty()) setting.help = choice.meaning;
    if (choice.refusal) {
      // The binary's rule first, then the flag's own.
      setting.refusal = [own = setting.refusal,
                         narrower = choice.refusal](const std::string& value) {
        std::string refused = narrower(value);
        return refused.empty() && own ? own(value) : refused;
      };
    }
    settings.push_back(std::move(setting));
  }
  return settings;
}

}  // namespace collbench
