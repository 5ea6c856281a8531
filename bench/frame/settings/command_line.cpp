// The settings tables through CLI11: registration, the values each setting has, checks, help.
#include "frame/settings/command_line.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <deque>

#include "core/errors.hpp"
#include "frame/settings/value_parsers.hpp"

namespace collbench {
namespace {

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

// `message` with each long piece of `args` in it (an argument, or a part of one between ',', ':'
// and '=') shortened as shown_value shortens it: CLI11's messages and the parsers' echo what they
// were given whole.
std::string shorten_echoes(std::string message, const std::vector<std::string>& args) {
  std::vector<std::string> pieces;
  for (const std::string& arg : args) {
    pieces.push_back(arg);
    std::size_t begin = 0;
    for (std::size_t end = arg.find_first_of(",:="); end != std::string::npos;
         end = arg.find_first_of(",:=", begin)) {
      pieces.push_back(arg.substr(begin, end - begin));
      begin = end + 1;
    }
    pieces.push_back(arg.substr(begin));
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& piece : pieces) {
    const std::string echoed = escape_control_characters(piece);
    if (echoed.size() <= kShownValueChars) continue;
    const std::string shown = shown_value(piece);
    for (std::size_t at = message.find(echoed); at != std::string::npos;
         at = message.find(echoed, at + shown.size())) {
      message.replace(at, echoed.size(), shown);
    }
  }
  return message;
}

}  // namespace

struct CommandLine::State {
  struct Entry {
    Entry(const SettingDeclaration& declared, Apply applying)
        : setting(declared), apply(std::move(applying)) {}
    SettingDeclaration setting;
    Apply apply;  // none for an axis
    CLI::Option* option = nullptr;
    std::string text;                // a single value as given
    std::vector<std::string> texts;  // a list as given, one text per occurrence
    bool flag = false;
    std::vector<std::string> values;  // after parse: as typed, checked
  };
  State(std::string program, std::string description)
      : app(std::move(description), std::move(program)) {}

  const Entry& entry(const std::string& long_name) const;
  std::vector<std::string> values_as_given(const Entry& entry) const;
  const Preset& preset() const;

  CLI::App app;
  std::deque<Entry> entries;  // a deque: CLI11 holds references into each entry
  std::vector<Preset> presets;
  std::string preset_name = "default";
};

const CommandLine::State::Entry& CommandLine::State::entry(const std::string& long_name) const {
  for (const Entry& candidate : entries) {
    if (candidate.setting.long_name() == long_name) return candidate;
  }
  throw std::out_of_range("no option " + long_name);
}

const Preset& CommandLine::State::preset() const {
  std::vector<std::string> known;
  for (const Preset& candidate : presets) {
    if (candidate.name == preset_name) return candidate;
    known.push_back(candidate.name);
  }
  throw UsageError(fmt::format("--preset {}: unknown preset (known: {})", shown_value(preset_name),
                               fmt::join(known, ", ")));
}

// The command line's values, else the preset's, else the default; a list split at commas, each
// value once.
std::vector<std::string> CommandLine::State::values_as_given(const Entry& entry) const {
  const SettingDeclaration& setting = entry.setting;
  std::vector<std::string> texts;
  if (entry.option->count() > 0) {
    if (setting.kind == ValueKind::flag) return {entry.flag ? "true" : "false"};
    if (!setting.list) return {entry.text};
    texts = entry.texts.empty() ? std::vector<std::string>{""} : entry.texts;  // CLI11 drops ""
  } else {
    std::string text = setting.kind == ValueKind::flag && setting.default_value.empty()
                           ? "false"
                           : setting.default_value;
    if (!presets.empty()) {
      for (const auto& [option, value] : preset().values) {
        if (option == setting.long_name()) text = value;
      }
    }
    if (text.empty()) return {};
    if (!setting.list) return {text};
    texts = {text};
  }
  std::vector<std::string> values;
  for (const std::string& text : texts) {
    for (std::string& value : split_list(text, setting.long_name()))
      values.push_back(std::move(value));
  }
  dedupe(values);
  return values;
}

CommandLine::CommandLine(std::string program, std::string description)
    : state_(std::make_unique<State>(std::move(program), std::move(description))) {}

CommandLine::~CommandLine() = default;

void CommandLine::declare(const SettingDeclaration& setting, Apply apply,
                          const std::string& group) {
  State::Entry& entry = state_->entries.emplace_back(setting, std::move(apply));
  CLI::App& app = state_->app;
  if (setting.kind == ValueKind::flag) {
    entry.option = app.add_flag(setting.option, entry.flag, setting.help);
  } else {
    // A list takes one text per occurrence; occurrences add up ("--sync a --sync b,c"). A
    // positional list takes every positional argument left.
    entry.option = setting.list ? app.add_option(setting.option, entry.texts, setting.help)
                                      ->allow_extra_args(setting.positional())
                                : app.add_option(setting.option, entry.text, setting.help);
    entry.option->type_name(type_name(setting.kind));
    if (!setting.default_value.empty()) entry.option->default_str(setting.default_value);
  }
  if (setting.help.empty()) {
    entry.option->group("");  // test-only: kept out of --help
  } else if (!group.empty()) {
    entry.option->group(group);
  }
}

void CommandLine::add_presets(std::vector<Preset> presets) {
  state_->presets = std::move(presets);
  state_->app.add_option("--preset", state_->preset_name, "a named set of defaults (below)")
      ->capture_default_str();
  std::string text = "Presets (--preset NAME; options given on the command line override them):";
  for (const Preset& preset : state_->presets) {
    std::string options;
    for (const auto& [option, value] : preset.values) {
      options += fmt::format("{}{} {}", options.empty() ? "" : " ", option, value);
    }
    text += fmt::format("\n  {}: {}{}{}", preset.name, preset.description,
                        options.empty() ? "" : ": ", options);
  }
  add_footer(text);
}

void CommandLine::add_footer(const std::string& text) {
  const std::string& footer = state_->app.get_footer();
  state_->app.footer(footer.empty() ? text : footer + "\n\n" + text);
}

std::string CommandLine::help() const {
  return state_->app.help();
}

void CommandLine::parse(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    try {
      state_->app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::CallForHelp&) {
      throw HelpRequested(help());
    } catch (const CLI::ParseError& error) {
      throw UsageError(error.what());
    }
    // Every value is checked before any applies: an error names the bad value, not a later one.
    for (State::Entry& entry : state_->entries) {
      entry.values = state_->values_as_given(entry);
      for (const std::string& value : entry.values) check_value(entry.setting, value);
    }
    for (const State::Entry& entry : state_->entries) {
      if (entry.apply) entry.apply(entry.values);
    }
  } catch (const UsageError& error) {
    throw UsageError(shorten_echoes(error.what(), args));
  }
}

bool CommandLine::given(const std::string& long_name) const {
  return state_->entry(long_name).option->count() > 0;
}

const std::vector<std::string>& CommandLine::values(const std::string& long_name) const {
  return state_->entry(long_name).values;
}

}  // namespace collbench
