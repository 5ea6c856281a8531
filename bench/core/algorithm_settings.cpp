// Parsing, validation and rendering of implementation settings.
#include "core/algorithm_settings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/byte_size.hpp"
#include "core/errors.hpp"

namespace collbench {
namespace {

// Whole numbers only, with nothing after them ("64", not "64x" or "6.4").
bool parse_whole(std::string_view text, long long& value) {
  if (text.empty() || text.size() > 18) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  value = std::stoll(std::string(text));
  return true;
}

// A byte count as --help shows it: 524288 -> "512K".
std::string short_bytes(double bytes) {
  static constexpr const char* kSuffixes[] = {"", "K", "M", "G", "T"};
  auto value = static_cast<unsigned long long>(bytes);
  int unit = 0;
  while (unit < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", value, kSuffixes[unit]);
}

}  // namespace

SettingSpec number_setting(std::string name, SettingKind kind, std::string default_value,
                           double min_value, double max_value, std::string help) {
  return {std::move(name),
          kind,
          std::move(default_value),
          std::move(help),
          min_value,
          max_value,
          {},
          true};
}

SettingSpec choice_setting(std::string name, std::vector<std::string> choices,
                           std::string default_value, std::string help) {
  return {std::move(name),
          SettingKind::choice,
          std::move(default_value),
          std::move(help),
          0,
          0,
          std::move(choices),
          true};
}

std::string environment_name(const SettingSpec& spec) {
  std::string name = "COLLBENCH_" + spec.name;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return name;
}

std::string short_name(const SettingSpec& spec, std::string_view prefix) {
  const std::string lead = std::string(prefix) + "_";
  if (!prefix.empty() && spec.name.size() > lead.size() &&
      spec.name.compare(0, lead.size(), lead) == 0) {
    return spec.name.substr(lead.size());
  }
  return spec.name;
}

std::string describe_values(const SettingSpec& spec) {
  switch (spec.kind) {
    case SettingKind::integer:
      return fmt::format("{}..{}", spec.min_value, spec.max_value);
    case SettingKind::bytes:
      return fmt::format("{}..{} bytes", short_bytes(spec.min_value), short_bytes(spec.max_value));
    case SettingKind::seconds:
      return fmt::format("0..{} s", spec.max_value);
    case SettingKind::choice:
      return fmt::format("{}", fmt::join(spec.choices, "|"));
  }
  return {};
}

std::string describe_default(const SettingSpec& spec) {
  return spec.kind == SettingKind::bytes ? short_bytes(std::stod(spec.default_value))
                                         : spec.default_value;
}

std::string canonical_value(const SettingSpec& spec, std::string_view text,
                            std::string_view label) {
  const auto refuse = [&] {
    return UsageError(fmt::format("{}={} is not {}", label, text, describe_values(spec)));
  };
  switch (spec.kind) {
    case SettingKind::integer: {
      long long value = 0;
      if (!parse_whole(text, value) || value < spec.min_value || value > spec.max_value)
        throw refuse();
      return std::to_string(value);
    }
    case SettingKind::bytes: {
      std::size_t value = 0;
      try {
        value = parse_byte_size(text, spec.name);
      } catch (const UsageError&) {
        throw refuse();
      }
      if (static_cast<double>(value) < spec.min_value ||
          static_cast<double>(value) > spec.max_value) {
        throw refuse();
      }
      return std::to_string(value);
    }
    case SettingKind::seconds: {
      const std::string copy(text);
      char* end = nullptr;
      const double value = std::strtod(copy.c_str(), &end);
      if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value) || value < 0 ||
          value > spec.max_value) {
        throw refuse();
      }
      return fmt::format("{:g}", value);
    }
    case SettingKind::choice:
      if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
        throw refuse();
      return std::string(text);
  }
  throw refuse();
}

SettingValues::SettingValues(const std::vector<SettingSpec>* specs, std::vector<std::string> values)
    : specs_(specs), values_(std::move(values)) {}

std::size_t SettingValues::index_of(std::string_view name) const {
  if (specs_ != nullptr) {
    for (std::size_t i = 0; i < specs_->size(); ++i) {
      if ((*specs_)[i].name == name) return i;
    }
  }
  throw std::logic_error(fmt::format("setting '{}' is not declared", name));
}

const std::string& SettingValues::text(std::string_view name) const {
  return values_.at(index_of(name));
}

long long SettingValues::integer(std::string_view name) const {
  return std::stoll(text(name));
}

std::size_t SettingValues::bytes(std::string_view name) const {
  return static_cast<std::size_t>(std::stoull(text(name)));
}

double SettingValues::real(std::string_view name) const {
  return std::stod(text(name));
}

std::string SettingValues::config() const {
  std::vector<std::string> changed;
  for (std::size_t i = 0; specs_ != nullptr && i < specs_->size(); ++i) {
    const SettingSpec& spec = (*specs_)[i];
    if (spec.measured && values_[i] != spec.default_value) {
      changed.push_back(fmt::format("{}={}", spec.name, values_[i]));
    }
  }
  return fmt::format("{}", fmt::join(changed, ";"));
}

std::string SettingValues::key() const {
  return fmt::format("{}", fmt::join(values_, ";"));
}

AlgorithmRequest parse_algorithm_request(std::string_view text) {
  AlgorithmRequest request;
  std::size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    const std::size_t colon = std::min(text.find(':', start), text.size());
    const std::string_view part = text.substr(start, colon - start);
    if (first) {
      if (part.empty())
        throw UsageError(fmt::format("--algo '{}' has no implementation name", text));
      request.name = std::string(part);
      first = false;
    } else {
      const std::size_t equals = part.find('=');
      if (equals == std::string_view::npos || equals == 0 || equals + 1 == part.size()) {
        throw UsageError(fmt::format("--algo '{}': '{}' is not SETTING=VALUE", text, part));
      }
      request.settings.emplace_back(std::string(part.substr(0, equals)),
                                    std::string(part.substr(equals + 1)));
    }
    start = colon + 1;
  }
  return request;
}

std::string_view algorithm_name_of(std::string_view text) {
  return text.substr(0, text.find(':'));
}

EnvironmentLookup process_environment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

SettingValues resolve_settings(const std::vector<SettingSpec>& specs, std::string_view prefix,
                               const AlgorithmRequest& request,
                               const EnvironmentLookup& environment) {
  std::vector<std::string> values;
  values.reserve(specs.size());
  for (const SettingSpec& spec : specs) {
    const std::string variable = environment_name(spec);
    const char* from_environment = environment ? environment(variable.c_str()) : nullptr;
    values.push_back(from_environment != nullptr && *from_environment != '\0'
                         ? canonical_value(spec, from_environment, variable)
                         : spec.default_value);
  }
  std::vector<bool> given(specs.size(), false);
  for (const auto& [name, value] : request.settings) {
    std::size_t found = specs.size();
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].name == name || short_name(specs[i], prefix) == name) found = i;
    }
    if (found == specs.size()) {
      std::vector<std::string> known;
      for (const SettingSpec& spec : specs) known.push_back(short_name(spec, prefix));
      throw UsageError(fmt::format(
          "--algo {}: no setting '{}' (it has: {})", request.name, name,
          known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
    }
    if (given[found]) {
      throw UsageError(fmt::format("--algo {}: setting '{}' is given twice", request.name, name));
    }
    given[found] = true;
    values[found] = canonical_value(specs[found], value,
                                    fmt::format("--algo {}: {}", request.name, specs[found].name));
  }
  return SettingValues(&specs, std::move(values));
}

}  // namespace collbench
