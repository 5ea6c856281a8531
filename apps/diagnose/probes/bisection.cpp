// Bisection of a slow group: halve, measure both halves, follow the one slow half.
#include "probes/bisection.hpp"

namespace collbench::diagnose {

Narrowing narrow_down(const std::vector<int>& group,
                      const std::function<bool(const std::vector<int>&)>& still_slow,
                      int min_size) {
  Narrowing result;
  result.smallest = group;
  for (;;) {
    const std::vector<int>& current = result.smallest;
    const auto middle = current.begin() + static_cast<std::ptrdiff_t>(current.size() / 2);
    std::vector<int> lower(current.begin(), middle);
    std::vector<int> upper(middle, current.end());
    if (static_cast<int>(lower.size()) < min_size) return result;  // the smaller half
    const bool lower_slow = still_slow(lower);
    const bool upper_slow = still_slow(upper);
    result.trail.push_back({lower, lower_slow});
    result.trail.push_back({upper, upper_slow});
    if (lower_slow == upper_slow) return result;  // needs both halves, or shared by both
    result.smallest = lower_slow ? std::move(lower) : std::move(upper);
  }
}

}  // namespace collbench::diagnose
