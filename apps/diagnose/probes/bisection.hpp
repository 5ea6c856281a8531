// Narrowing a slow group of ranks down to the smallest group that is still slow, by halves, so
// that a collective that falls short on N ranks is pinned to a node, a pair or a link in
// O(log N) measurements.
#pragma once

#include <functional>
#include <vector>

namespace collbench::diagnose {

// One group measured on the way down, and whether it was slow.
struct GroupProbe {
  std::vector<int> ranks;
  bool slow = false;
};

struct Narrowing {
  std::vector<int> smallest;      // the smallest group still slow
  std::vector<GroupProbe> trail;  // every group measured, in order (for the report)
};

// `group` is slow. Splits it into halves (the first half is the lower half of the given order, so
// a caller that sorts by node then rank gets halves that follow nodes), measures both through
// `still_slow` and goes on into the slow one. Stops, returning the current group, when
//   - neither half is slow: the slowness needs the whole group (the link between the halves);
//   - both halves are slow: the cause is shared by both, so no half alone explains it;
//   - a half would have fewer than `min_size` ranks.
// Two measurements per level: at most 2 * log2(N / min_size) + 2 calls of `still_slow`.
Narrowing narrow_down(const std::vector<int>& group,
                      const std::function<bool(const std::vector<int>&)>& still_slow,
                      int min_size = 2);

}  // namespace collbench::diagnose
