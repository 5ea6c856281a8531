// The parts of the implementation interface every implementation shares.
#include "core/algorithm.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace collbench {

std::string_view name_of(LaunchPart part) {
  switch (part) {
    case LaunchPart::send:
      return "send";
    case LaunchPart::reduce:
      return "reduce";
    case LaunchPart::gather:
      return "gather";
    case LaunchPart::finish:
      return "finish";
  }
  return "?";
}

void CollectiveAlgorithm::launch_part(const std::vector<RankContext>&, LaunchPart part) {
  throw std::logic_error(
      fmt::format("{}: launched in parts ({}), which it does not support", name(), name_of(part)));
}

std::string AlgorithmChoice::key() const {
  return fmt::format("{}:{}", entry->name, settings.key());
}

}  // namespace collbench
