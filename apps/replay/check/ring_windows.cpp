// Aligning ring-buffer windows by epochs.
#include "check/ring_windows.hpp"

#include <algorithm>

namespace collbench::replay {

std::optional<std::int64_t> common_window_start(const std::vector<RankWindow>& members) {
  std::int64_t start = 0;
  for (const RankWindow& member : members) {
    if (!member.dropped) continue;  // it recorded everything from the start
    if (!member.first_epoch) return std::nullopt;
    const std::int64_t whole_from = *member.first_epoch + (member.first_is_collective ? 0 : 1);
    start = std::max(start, whole_from);
  }
  return start;
}

}  // namespace collbench::replay
