// The settings an implementation declares in its descriptor, and their values for one run. One
// SettingSpec is everything about a setting: from it come command-line parsing
// (`--algo ring:ctas=64`), the environment override (COLLBENCH_RING_CTAS), validation, --help and
// the CSV config column ("ring_ctas=64").
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collbench {

enum class SettingKind {
  integer,  // a whole number in [min_value, max_value]
  bytes,  // a byte count with an optional K/M/G suffix (powers of 1024), in [min_value, max_value]
  seconds,  // a non-negative real number of seconds, at most max_value
  choice,   // one of `choices`
};

struct SettingSpec {
  // The full name: the CSV config key ("ring_ctas"), and COLLBENCH_RING_CTAS in the environment.
  // On the command line the implementation's prefix ("ring_") may be left out: ring:ctas=64.
  std::string name;
  SettingKind kind;
  std::string default_value;  // canonical text, as `config` writes it
  std::string help;
  double min_value = 0;
  double max_value = 0;
  std::vector<std::string> choices;  // SettingKind::choice
  // False for a setting that changes no measurement (a watchdog's timeout): never in `config`.
  bool measured = true;
};

SettingSpec number_setting(std::string name, SettingKind kind, std::string default_value,
                           double min_value, double max_value, std::string help);
SettingSpec choice_setting(std::string name, std::vector<std::string> choices,
                           std::string default_value, std::string help);

// "COLLBENCH_RING_CTAS" for "ring_ctas".
std::string environment_name(const SettingSpec& spec);
// The name on the command line: `name` without "<prefix>_" ("ctas" for "ring_ctas" and prefix
// "ring"); the full name when it does not start with the prefix (shared settings).
std::string short_name(const SettingSpec& spec, std::string_view prefix);
// "1..128", "16..1G bytes", "push|pull": the allowed values, for --help and errors.
std::string describe_values(const SettingSpec& spec);
// The default as --help shows it: byte counts with a K/M/G suffix ("512K").
std::string describe_default(const SettingSpec& spec);
// Checks `text` against `spec` and returns its canonical text (bytes as a plain decimal count);
// otherwise throws UsageError "<label>=<text> is not <allowed values>" (label: where the value
// came from, "COLLBENCH_RING_CTAS" or "--algo ring: ring_ctas").
std::string canonical_value(const SettingSpec& spec, std::string_view text, std::string_view label);

// The values of every setting one implementation declares, in declaration order: defaults, then
// the environment, then the command line.
class SettingValues {
 public:
  SettingValues() = default;
  SettingValues(const std::vector<SettingSpec>* specs, std::vector<std::string> values);

  const std::string& text(std::string_view name) const;
  long long integer(std::string_view name) const;
  std::size_t bytes(std::string_view name) const;
  double real(std::string_view name) const;
  // The measured settings that differ from their defaults, "ring_ctas=32;ring_slots=4": the CSV
  // config column. Empty at the defaults.
  std::string config() const;
  // Every value, measured or not: two choices with the same key make the same implementation.
  std::string key() const;

 private:
  std::size_t index_of(std::string_view name) const;
  const std::vector<SettingSpec>* specs_ = nullptr;
  std::vector<std::string> values_;
};

// One --algo entry: an implementation's name and the settings given with it
// ("ring:ctas=64:slots=4" is ring with {ctas, 64} and {slots, 4}).
struct AlgorithmRequest {
  std::string name;
  std::vector<std::pair<std::string, std::string>> settings;
};
// Throws UsageError naming `text` when an entry after the name is not NAME=VALUE.
AlgorithmRequest parse_algorithm_request(std::string_view text);
// The implementation's name in an --algo entry: "ring" for "ring:ctas=64".
std::string_view algorithm_name_of(std::string_view text);

// Looks an environment variable up (std::getenv by default; tests pass their own).
using EnvironmentLookup = std::function<const char*(const char*)>;
EnvironmentLookup process_environment();

// The values of `specs` for `request`: each setting's default, overridden by its environment
// variable when set, overridden by the request. Throws UsageError naming the bad value, or a
// setting the implementation does not declare (listing those it does).
SettingValues resolve_settings(const std::vector<SettingSpec>& specs, std::string_view prefix,
                               const AlgorithmRequest& request,
                               const EnvironmentLookup& environment);

}  // namespace collbench
