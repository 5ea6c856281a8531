// A binary's command line, made from its settings tables (frame/settings/setting.hpp): one CLI11
// option per setting, every value checked (type, choices, rule) before any applies, the values
// applied in table order, and --help. Each bad input is one UsageError line that names the option
// and the value, a long value shortened (shown_value).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "frame/settings/setting.hpp"

namespace collbench {

// --help was given to parse(): `what()` is the help to print; exit 0.
class HelpRequested : public std::runtime_error {
 public:
  explicit HelpRequested(const std::string& text) : std::runtime_error(text) {}
};

class CommandLine {
 public:
  CommandLine(std::string program, std::string description);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Declares every setting of `table` (copied); parse() applies their values to `target`, which
  // must outlive the parse. `group` is their heading in --help ("" for the binary's own options).
  template <typename Target>
  void add(const std::vector<Setting<Target>>& table, Target& target,
           const std::string& group = "");
  // --preset NAME, with the presets listed below the options; "default" (the first) is none.
  void add_presets(std::vector<Preset> presets);
  void add_footer(const std::string& text);

  std::string help() const;
  // Parses `args` (args[0] is the program), checks every value and applies them. Throws
  // UsageError (one line), or HelpRequested for --help.
  void parse(const std::vector<std::string>& args);

  // After parse(): whether the command line gave `long_name`, and the values it has (given, the
  // preset's or the default), as typed and checked.
  bool given(const std::string& long_name) const;
  const std::vector<std::string>& values(const std::string& long_name) const;

 private:
  using Apply = std::function<void(const std::vector<std::string>& values)>;
  void declare(const SettingDeclaration& setting, Apply apply, const std::string& group);

  struct State;
  std::unique_ptr<State> state_;
};

// A binary's command line as a declaration: its name, its description, and `declare`, which adds
// its tables (CommandLine::add) bound to an Options.
template <typename Options>
struct CommandLineDeclaration {
  std::string program;
  std::string description;
  std::function<void(CommandLine&, Options&)> declare;

  std::string help() const {
    Options options;
    CommandLine line(program, description);
    declare(line, options);
    return line.help();
  }
  // `args` parsed into Options; `then(options, line)` reads what else it needs of the parsed line
  // (the rules between options, a sweep's axes).
  Options parse(const std::vector<std::string>& args,
                const std::function<void(Options&, const CommandLine&)>& then = {}) const {
    Options options;
    CommandLine line(program, description);
    declare(line, options);
    line.parse(args);
    if (then) then(options, line);
    return options;
  }
};

template <typename Target>
void CommandLine::add(const std::vector<Setting<Target>>& table, Target& target,
                      const std::string& group) {
  for (const Setting<Target>& setting : table) {
    Apply apply;  // none for an axis: its values are read by the sweep (values())
    if (setting.apply_all) {
      apply = [set = setting.apply_all, &target](const std::vector<std::string>& values) {
        set(target, values);
      };
    } else if (setting.apply && !setting.is_axis()) {
      apply = [set = setting.apply, &target](const std::vector<std::string>& values) {
        if (!values.empty()) set(target, values.front());
      };
    }
    declare(setting, std::move(apply), group);
  }
}

}  // namespace collbench
