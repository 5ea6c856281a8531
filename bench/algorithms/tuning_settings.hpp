// An algorithm's settings bound to the fields of its own tuning struct: each setting's declaration
// (a SettingSpec whose default is the struct's own default) and how its resolved value sets the
// field. A descriptor publishes the specs; its maker applies the values to the struct's defaults.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/algorithm_settings.hpp"

namespace collbench {

template <typename Tuning>
struct TuningSetting {
  SettingSpec spec;
  std::function<void(Tuning&, const SettingValues&)> apply;
};

template <typename Tuning>
using TuningSettings = std::vector<TuningSetting<Tuning>>;

// Tuning{} with `values` applied by `settings`, then validated (Tuning::validate() throws
// UsageError naming the setting).
template <typename Tuning>
Tuning tuning_from(const TuningSettings<Tuning>& settings, const SettingValues& values) {
  Tuning tuning;
  for (const TuningSetting<Tuning>& setting : settings) setting.apply(tuning, values);
  tuning.validate();
  return tuning;
}

template <typename Tuning>
std::vector<SettingSpec> specs_of(const TuningSettings<Tuning>& settings) {
  std::vector<SettingSpec> specs;
  for (const TuningSetting<Tuning>& setting : settings) specs.push_back(setting.spec);
  return specs;
}

SettingSpec integer_spec(const std::string& name, int default_value, int min_value, int max_value,
                         std::string help);
SettingSpec bytes_spec(const std::string& name, std::size_t default_value, std::size_t min_value,
                       std::size_t max_value, std::string help);

// A whole number in [min_value, max_value] that sets `field`.
template <typename Tuning>
TuningSetting<Tuning> integer_setting(const std::string& name, int Tuning::*field, int min_value,
                                      int max_value, std::string help) {
  return {integer_spec(name, Tuning{}.*field, min_value, max_value, std::move(help)),
          [name, field](Tuning& tuning, const SettingValues& values) {
            tuning.*field = static_cast<int>(values.integer(name));
          }};
}

// A byte count in [min_value, max_value] that sets `field`.
template <typename Tuning>
TuningSetting<Tuning> bytes_setting(const std::string& name, std::size_t Tuning::*field,
                                    std::size_t min_value, std::size_t max_value,
                                    std::string help) {
  return {bytes_spec(name, Tuning{}.*field, min_value, max_value, std::move(help)),
          [name, field](Tuning& tuning, const SettingValues& values) {
            tuning.*field = values.bytes(name);
          }};
}

}  // namespace collbench
