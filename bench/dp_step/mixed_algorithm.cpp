// Splitting an --algo item and the alternation rules of a mixed pair (see mixed_algorithm.hpp).
#include "mixed_algorithm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/algorithm.hpp"

namespace collbench::dp {
namespace {

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t end = text.find(separator); end != std::string_view::npos;
       end = text.find(separator, begin)) {
    parts.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  parts.emplace_back(text.substr(begin));
  return parts;
}

}  // namespace

std::vector<std::string> implementations_of(std::string_view algo) {
  return split(algo, '+');
}

int alternate_of(std::size_t bucket, int ways) {
  return static_cast<int>(bucket % static_cast<std::size_t>(ways));
}

const std::string& implementation_of_bucket(const std::vector<std::string>& implementations,
                                            std::size_t bucket) {
  return implementations[alternate_of(bucket, static_cast<int>(implementations.size()))];
}

int lane_plan(const std::vector<bool>& instances_run_concurrently, int lanes_given) {
  const bool any = std::find(instances_run_concurrently.begin(), instances_run_concurrently.end(),
                             true) != instances_run_concurrently.end();
  if (!any) return 1;
  return instances_run_concurrently.size() > 1 ? std::min(lanes_given, 2) : lanes_given;
}

std::optional<ReduceOp> common_gradient_op(const std::vector<ReduceOpSupport>& implementations) {
  const auto all = [&implementations](bool ReduceOpSupport::*op) {
    return std::all_of(implementations.begin(), implementations.end(),
                       [op](const ReduceOpSupport& support) { return support.*op; });
  };
  if (all(&ReduceOpSupport::avg)) return ReduceOp::avg;
  if (all(&ReduceOpSupport::sum)) return ReduceOp::sum;
  return std::nullopt;
}

std::string implementation_knobs(std::string_view algo) {
  std::vector<std::string> knobs;
  for (const std::string& implementation : implementations_of(algo)) {
    const std::string config = resolve_algorithm(implementation).config();
    if (config.empty()) continue;
    // Knobs two implementations share (peer_launch for ring and oneshot) appear once.
    for (std::string& knob : split(config, ';')) {
      if (std::find(knobs.begin(), knobs.end(), knob) == knobs.end())
        knobs.push_back(std::move(knob));
    }
  }
  return fmt::format("{}", fmt::join(knobs, ";"));
}

}  // namespace collbench::dp
