// One setting of a binary, declared once: its option names, value type, default, allowed values,
// help, and how its values apply (into the binary's settings struct; for an axis of a sweep, into
// each configuration, with its part of the config string and of the benchmark name). The command
// line (frame/settings/command_line.hpp) registers it with CLI11, checks its values and writes its
// --help line from it, so adding a setting is adding one entry to a table.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

// How a value is typed: INT, FLOAT or TEXT in --help; a flag takes no value ("true" or "false").
enum class ValueKind { integer, real, text, flag };

// The end of an error after "OPTION VALUE" for a value that is not allowed (" is not from 1 to
// 32", ": must be a positive multiple of 8"), or "" for one that is.
using Refusal = std::function<std::string(const std::string& value)>;

// What every setting declares, whatever its values apply to.
struct SettingDeclaration {
  SettingDeclaration(std::string option, ValueKind kind, std::string default_value,
                     std::string help);

  // CLI11's names: "--bucket-mib", "-g,--gpus", "--master-weights,!--no-master-weights"; a
  // name without dashes ("SOURCE") is a positional argument (a list takes every one given).
  std::string option;
  ValueKind kind;
  std::string default_value;  // as typed ("sync,overlap"); "" for none
  std::string help;           // "" keeps a test-only setting out of --help
  bool list = false;          // comma-separated values, each checked alone, repeats dropped
  // Text: the values allowed, named `noun` in the error ("--sync x: unknown sync mode (expected
  // ...)"); with `algorithm`, also every all-reduce implementation of the registry, with its
  // tunings ("ring:ctas=32": frame/settings/algorithm_tunings.hpp).
  std::vector<std::string> choices;
  bool algorithm = false;
  std::string noun = "value";
  Refusal refusal;  // beyond the type and the choices; none: every such value is allowed

  // "--gpus" for "-g,--gpus", "--master-weights" for the flag pair, "SOURCE" for a positional:
  // what errors name.
  std::string long_name() const;
  bool positional() const { return option.rfind('-', 0) != 0; }
};

// Throws UsageError, one line naming the setting and the value (shortened when long), unless
// `value` is a valid value of `setting`.
void check_value(const SettingDeclaration& setting, const std::string& value);

// Refusals for numbers (the value passed check_value's type check first).
// " is not from LOW to HIGH", or " is not WHAT" when `what` is given.
Refusal number_within(double low, double high, std::string what = "");
// " is not above LOW and at most HIGH", or " is not WHAT".
Refusal number_above(double low, double high, std::string what = "");
// ": WHY" unless `allowed(value)`.
Refusal number_where(std::function<bool(double)> allowed, std::string why);

// A setting whose values apply to a `Target`: a binary's settings struct, or for an axis each
// configuration of its sweep.
template <typename Target>
struct Setting : SettingDeclaration {
  using SettingDeclaration::SettingDeclaration;

  // How values apply: one at a time (a single value, or each value of an axis to each
  // configuration of the sweep), or a list's values all at once, in order, each once.
  std::function<void(Target&, const std::string& value)> apply;
  std::function<void(Target&, const std::vector<std::string>& values)> apply_all;
  // An axis that means nothing for some configurations (bucket sizes under sync): those get one
  // configuration, with `unused_value` applied.
  std::function<bool(const Target&)> applies_to;
  std::string unused_value;
  // The config string's "key=value" for a configuration ("" leaves it out), and the benchmark
  // name's part ("/key:value", "" for none).
  std::function<std::string(const Target&)> config_text;
  std::function<std::string(const Target&)> name_text;

  // A list whose values are swept: each configuration of the plan gets one of them.
  bool is_axis() const { return list && static_cast<bool>(apply); }

  // Builders, so that each table entry reads as a sentence.
  Setting& as_list() {
    list = true;
    return *this;
  }
  Setting& one_of(std::vector<std::string> allowed, std::string what) {
    choices = std::move(allowed);
    noun = std::move(what);
    return *this;
  }
  Setting& or_algorithm(std::string what) {
    algorithm = true;
    noun = std::move(what);
    return *this;
  }
  Setting& within(double low, double high, std::string what = "") {
    refusal = number_within(low, high, std::move(what));
    return *this;
  }
  Setting& above(double low, double high, std::string what = "") {
    refusal = number_above(low, high, std::move(what));
    return *this;
  }
  Setting& must(std::function<bool(double)> allowed, std::string why) {
    refusal = number_where(std::move(allowed), std::move(why));
    return *this;
  }
  // `why_not(value)`: why a value is not allowed, "" when it is.
  Setting& with_rule(std::function<std::string(const std::string&)> why_not) {
    refusal = [why_not = std::move(why_not)](const std::string& value) {
      const std::string why = why_not(value);
      return why.empty() ? why : ": " + why;
    };
    return *this;
  }
  Setting& to(std::function<void(Target&, const std::string&)> set) {
    apply = std::move(set);
    return *this;
  }
  Setting& to_all(std::function<void(Target&, const std::vector<std::string>&)> set) {
    apply_all = std::move(set);
    return *this;
  }
  Setting& only_for(std::function<bool(const Target&)> applies, std::string otherwise) {
    applies_to = std::move(applies);
    unused_value = std::move(otherwise);
    return *this;
  }
  Setting& in_config(std::function<std::string(const Target&)> text) {
    config_text = std::move(text);
    return *this;
  }
  Setting& in_name(std::function<std::string(const Target&)> text) {
    name_text = std::move(text);
    return *this;
  }
};

// The setting of `table` whose long name is `name` ("--algo"); std::out_of_range for none.
template <typename Target>
const Setting<Target>& find_setting(const std::vector<Setting<Target>>& table,
                                    const std::string& name) {
  for (const Setting<Target>& setting : table) {
    if (setting.long_name() == name) return setting;
  }
  throw std::out_of_range("no setting " + name);
}

// A named set of setting values (--preset NAME): defaults that options given on the command line
// override, each option as a whole (a given --algo replaces the preset's list).
struct Preset {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> values;  // long option name, value as typed
};

}  // namespace collbench
