// The checks every setting's values pass: type, choices, the setting's own refusal.
#include "frame/settings/setting.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "core/algorithm_settings.hpp"
#include "core/errors.hpp"
#include "frame/settings/algorithm_tunings.hpp"

namespace collbench {
namespace {

bool whole_number(const std::string& text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (stop == end && error == std::errc()) return true;
  // Beyond 64 bits is still a whole number; the setting's range refuses it.
  return stop == end && error == std::errc::result_out_of_range;
}

bool real_number(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && std::isfinite(value);
}

// The value as a number, for the numeric refusals; a whole number beyond what a double holds
// exactly is still far beyond every range.
double number(const std::string& value) {
  try {
    return std::stod(value);
  } catch (const std::out_of_range&) {
    return value.front() == '-' ? -HUGE_VAL : HUGE_VAL;
  }
}

}  // namespace

SettingDeclaration::SettingDeclaration(std::string option_names, ValueKind value_kind,
                                       std::string default_text, std::string help_text)
    : option(std::move(option_names)),
      kind(value_kind),
      default_value(std::move(default_text)),
      help(std::move(help_text)) {}

std::string SettingDeclaration::long_name() const {
  if (positional()) return option;
  const std::size_t start = option.find("--");
  return option.substr(start, option.find(',', start) - start);
}

void check_value(const SettingDeclaration& setting, const std::string& value) {
  const std::string named = fmt::format("{} {}", setting.long_name(), shown_value(value));
  if (setting.kind == ValueKind::integer && !whole_number(value)) {
    throw UsageError(named + ": not a whole number");
  }
  if (setting.kind == ValueKind::real && !real_number(value)) {
    throw UsageError(named + ": not a number");
  }
  if (!setting.choices.empty() || setting.algorithm) {
    std::vector<std::string> allowed = setting.choices;
    if (setting.algorithm) {
      for (std::string& name : all_reduce_implementations()) allowed.push_back(std::move(name));
    }
    const std::string_view chosen = setting.algorithm ? algorithm_name_of(value) : value;
    if (std::find(allowed.begin(), allowed.end(), chosen) == allowed.end()) {
      throw UsageError(fmt::format("{}: unknown {} (expected {})", named, setting.noun,
                                   fmt::join(allowed, ", ")));
    }
    if (setting.algorithm) check_tunings(value);
  }
  if (setting.refusal) {
    const std::string refused = setting.refusal(value);
    if (!refused.empty()) throw UsageError(named + refused);
  }
}

Refusal number_within(double low, double high, std::string what) {
  if (what.empty()) what = fmt::format("from {} to {}", low, high);
  return [low, high, what](const std::string& value) {
    const double x = number(value);
    return x >= low && x <= high ? std::string() : " is not " + what;
  };
}

Refusal number_above(double low, double high, std::string what) {
  if (what.empty()) what = fmt::format("above {} and at most {}", low, high);
  return [low, high, what](const std::string& value) {
    const double x = number(value);
    return x > low && x <= high ? std::string() : " is not " + what;
  };
}

Refusal number_where(std::function<bool(double)> allowed, std::string why) {
  return [allowed = std::move(allowed), why = std::move(why)](const std::string& value) {
    return allowed(number(value)) ? std::string() : ": " + why;
  };
}

}  // namespace collbench
