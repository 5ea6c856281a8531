// The interval rule of `collreport compare` (decision.hpp states it).
#include "compare/decision.hpp"

#include <cmath>

namespace collbench::collreport {

double relative_change(double base, double fresh) {
  return base > 0 ? (fresh - base) / base : 0.0;
}

IntervalJudgement judge_by_intervals(const MedianInterval& base, const MedianInterval& fresh,
                                     double min_effect) {
  IntervalJudgement j;
  j.change = relative_change(base.estimate_us, fresh.estimate_us);
  j.change_lo = relative_change(base.hi_us, fresh.lo_us);
  j.change_hi = relative_change(base.lo_us, fresh.hi_us);
  const bool slower = j.change_lo > 0;
  const bool faster = j.change_hi < 0;
  j.significant = slower || faster;
  if (slower && j.change > min_effect) {
    j.decision = IntervalDecision::kRegressed;
  } else if (faster && j.change < -min_effect) {
    j.decision = IntervalDecision::kImproved;
  } else if (std::abs(j.change) <= min_effect &&
             (j.significant || (j.change_lo >= -min_effect && j.change_hi <= min_effect))) {
    j.decision = IntervalDecision::kNoChange;
  } else {
    j.decision = IntervalDecision::kInconclusive;
  }
  return j;
}

}  // namespace collbench::collreport
