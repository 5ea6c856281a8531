// The interval rule of `collreport compare`: from the confidence intervals of BASE's and NEW's
// median times and a minimum effect, whether NEW is slower, faster, the same, or cannot be told.
//
// The rule, for a change d = new_p50 / base_p50 - 1 with the plausible range
// [d_lo, d_hi] = [new_lo / base_hi - 1, new_hi / base_lo - 1] (every ratio the two intervals
// allow):
//   regressed     d_lo > 0 (significant: the intervals are disjoint) and d > min effect;
//   improved      d_hi < 0 (significant) and d < -min effect;
//   no change     |d| <= min effect, and the difference is significant (then it is real but below
//                 the minimum effect) or the whole range lies within +-min effect;
//   inconclusive  anything else: the intervals overlap but are too wide to rule out an effect of
//                 the minimum size; more samples narrow them.
// Disjoint intervals are a conservative test: two 95% intervals that do not overlap mean a
// difference at well above 95%. The minimum effect keeps a real but irrelevant difference (a
// long, quiet run makes the intervals tight) from failing a gate.
#pragma once

namespace collbench::collreport {

// A median time and its confidence interval (lo <= estimate <= hi, lo > 0).
struct MedianInterval {
  double estimate_us = 0;
  double lo_us = 0;
  double hi_us = 0;
};

enum class IntervalDecision { kRegressed, kImproved, kNoChange, kInconclusive };

struct IntervalJudgement {
  IntervalDecision decision = IntervalDecision::kInconclusive;
  double change = 0;         // d
  double change_lo = 0;      // d_lo
  double change_hi = 0;      // d_hi
  bool significant = false;  // the intervals are disjoint
};

// (fresh - base) / base, 0 when base is 0. Not fresh / base - 1: a change of exactly a threshold
// (105 against 100 for 5%) then equals it instead of lying a rounding error above it.
double relative_change(double base, double fresh);

// `min_effect` is a fraction (0.03 for 3%); both intervals valid (0 < lo <= estimate <= hi).
IntervalJudgement judge_by_intervals(const MedianInterval& base, const MedianInterval& fresh,
                                     double min_effect);

}  // namespace collbench::collreport
