// Figures as text.
#include "report/figure_text.hpp"

#include <fmt/format.h>

namespace collbench::diagnose {

std::string ratio_text(double ratio) {
  return fmt::format("{:.2f}×", ratio);
}

std::string spreads_text(double spreads) {
  return fmt::format("{:.1f} spreads", spreads);
}

std::string rank_list(const std::vector<int>& ranks) {
  return fmt::format("{}", fmt::join(ranks, ","));
}

}  // namespace collbench::diagnose
