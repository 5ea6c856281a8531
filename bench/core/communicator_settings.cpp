// Parsing the communicator axes and writing their config text.
#include "core/communicator_settings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "core/config_column.hpp"
#include "core/errors.hpp"

namespace collbench {
namespace {

constexpr std::string_view kDefault = "default";

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The entries of a comma-separated list; throws UsageError for an empty list or entry.
std::vector<std::string> list_entries(const std::string& text, std::string_view option) {
  std::vector<std::string> entries;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string entry =
        text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (entry.empty()) throw UsageError(fmt::format("{} '{}' has an empty entry", option, text));
    entries.push_back(entry);
    if (comma == std::string::npos) return entries;
    begin = comma + 1;
  }
}

template <typename T>
void append_once(std::vector<T>& values, T value) {
  if (std::find(values.begin(), values.end(), value) == values.end())
    values.push_back(std::move(value));
}

std::vector<std::string> parse_name_list(const std::string& text, std::string_view option,
                                         const std::vector<std::string>& names) {
  std::vector<std::string> values;
  for (const std::string& entry : list_entries(text, option)) {
    if (equal_ignoring_case(entry, kDefault)) {
      append_once(values, std::string());
      continue;
    }
    const auto known = std::find_if(names.begin(), names.end(), [&](const std::string& name) {
      return equal_ignoring_case(entry, name);
    });
    if (known == names.end()) {
      throw UsageError(
          fmt::format("{} '{}' is not one of {}, default", option, entry, fmt::join(names, ", ")));
    }
    append_once(values, *known);
  }
  return values;
}

// "8": a CTA limit from 1 to kMaxNcclCtas in decimal digits, or nothing.
std::optional<int> cta_count(const std::string& text) {
  const bool digits =
      !text.empty() && text.size() <= 3 && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      });
  const int value = digits ? std::stoi(text) : 0;
  if (value < 1 || value > kMaxNcclCtas) return std::nullopt;
  return value;
}

// An environment's value as one part of the config column: NCCL's per-operation form
// ("allreduce:tree;broadcast:ring") has ';', which separates the parts, so it is written '|'.
std::string config_value(std::string value) {
  std::replace(value.begin(), value.end(), ';', '|');
  return value;
}

}  // namespace

const std::vector<std::string>& nccl_algorithm_names() {
  static const std::vector<std::string> names = {
      "Ring", "Tree", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
  return names;
}

const std::vector<std::string>& nccl_protocol_names() {
  static const std::vector<std::string> names = {"LL", "LL128", "Simple"};
  return names;
}

std::vector<std::string> parse_nccl_algo_list(const std::string& text) {
  return parse_name_list(text, "--nccl-algo", nccl_algorithm_names());
}

std::vector<std::string> parse_nccl_proto_list(const std::string& text) {
  return parse_name_list(text, "--nccl-proto", nccl_protocol_names());
}

std::vector<int> parse_nccl_max_ctas_list(const std::string& text) {
  std::vector<int> values;
  for (const std::string& entry : list_entries(text, "--nccl-max-ctas")) {
    if (equal_ignoring_case(entry, kDefault)) {
      append_once(values, 0);
      continue;
    }
    const std::optional<int> value = cta_count(entry);
    if (!value) {
      throw UsageError(fmt::format(
          "--nccl-max-ctas '{}' is not a CTA count from 1 to {} or default", entry, kMaxNcclCtas));
    }
    append_once(values, *value);
  }
  return values;
}

void apply_environment_defaults(const NcclEnvironment& environment, std::vector<std::string>& algos,
                                std::vector<std::string>& protos, std::vector<int>& max_ctas) {
  const auto fill = [](std::vector<std::string>& values, const std::optional<std::string>& set,
                       const std::vector<std::string>& names) {
    if (!set || set->empty()) return;
    const auto known = std::find_if(names.begin(), names.end(), [&](const std::string& name) {
      return equal_ignoring_case(*set, name);
    });
    std::vector<std::string> filled;
    for (const std::string& value : values)
      append_once(filled, value.empty() ? (known != names.end() ? *known : *set) : value);
    values = std::move(filled);
  };
  fill(algos, environment.algo, nccl_algorithm_names());
  fill(protos, environment.proto, nccl_protocol_names());
  if (!environment.max_ctas || environment.max_ctas->empty()) return;
  const std::optional<int> limit = cta_count(*environment.max_ctas);
  if (!limit) {
    throw UsageError(fmt::format(
        "NCCL_MAX_CTAS '{}' in the environment is not a CTA count from 1 to {}; fix or unset it",
        *environment.max_ctas, kMaxNcclCtas));
  }
  std::vector<int> filled;
  for (int value : max_ctas) append_once(filled, value == 0 ? *limit : value);
  max_ctas = std::move(filled);
}

void apply_environment_defaults(const NcclEnvironment& environment, CommunicatorAxes& axes) {
  apply_environment_defaults(environment, axes.nccl_algos, axes.nccl_protos, axes.nccl_max_ctas);
}

std::vector<CommunicatorSettings> nccl_combinations(const CommunicatorAxes& axes,
                                                    const std::optional<SplitRule>& split) {
  std::vector<CommunicatorSettings> combinations;
  for (const std::string& algo : axes.nccl_algos) {
    for (const std::string& proto : axes.nccl_protos) {
      for (int max_ctas : axes.nccl_max_ctas)
        combinations.push_back({algo, proto, max_ctas, split});
    }
  }
  return combinations;
}

NcclEnvironment read_nccl_environment() {
  const auto variable = [](const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  return {variable("NCCL_ALGO"), variable("NCCL_PROTO"), variable("NCCL_MAX_CTAS")};
}

std::string environment_nccl_config(const NcclEnvironment& environment) {
  std::vector<std::string> algos = {""}, protos = {""};
  std::vector<int> max_ctas = {0};
  apply_environment_defaults(environment, algos, protos, max_ctas);
  CommunicatorSettings settings;
  settings.nccl_algo = algos.front();
  settings.nccl_proto = protos.front();
  settings.nccl_max_ctas = max_ctas.front();
  return communicator_config(settings, 1);
}

std::vector<std::vector<int>> communicator_groups(const CommunicatorSettings& settings, int ranks) {
  if (settings.split) return split_groups(*settings.split, ranks);
  std::vector<int> all(ranks);
  for (int rank = 0; rank < ranks; ++rank) all[rank] = rank;
  return {all};
}

std::string describe_groups(const std::vector<std::vector<int>>& groups) {
  std::vector<std::string> texts;
  for (const std::vector<int>& group : groups)
    texts.push_back(fmt::format("{}", fmt::join(group, ",")));
  return fmt::format("{}", fmt::join(texts, " | "));
}

std::string communicator_config(const CommunicatorSettings& settings, int ranks) {
  std::string config;
  if (!settings.nccl_algo.empty())
    append_config(config, "nccl_algo=" + config_value(settings.nccl_algo));
  if (!settings.nccl_proto.empty())
    append_config(config, "nccl_proto=" + config_value(settings.nccl_proto));
  if (settings.nccl_max_ctas > 0)
    append_config(config, fmt::format("nccl_max_ctas={}", settings.nccl_max_ctas));
  if (settings.split) {
    append_config(config, fmt::format("split={};groups={}", settings.split->text(),
                                      split_groups(*settings.split, ranks).size()));
  }
  return config;
}

}  // namespace collbench
