// Where the ranks' recordings of one communicator can be compared when a ring buffer (Flight
// Recorder's) dropped the oldest entries, on each rank at its own point: from the first epoch
// every member recorded whole. An epoch k is collective k and the point-to-point ops issued after
// it, before collective k+1 (epoch 0: those before the first); a collective starts its epoch, so a
// rank whose first kept entry is collective k kept epoch k whole, one whose first is a send or
// recv of epoch k kept it only from k+1. Only the start is aligned: ranks whose recordings end
// differently disagree for real (a hang), which the check must show.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace collbench::replay {

struct RankWindow {
  bool dropped = false;  // the rank's buffer dropped entries (its first kept one is not its first)
  // The epoch of the rank's first kept entry of the communicator, and whether it is a collective;
  // nothing when the rank kept none.
  std::optional<std::int64_t> first_epoch;
  bool first_is_collective = false;
};

// The first epoch every member recorded whole (0 when nothing was dropped), or nothing when a
// member's buffer dropped all of the communicator's entries: then no window is common.
std::optional<std::int64_t> common_window_start(const std::vector<RankWindow>& members);

}  // namespace collbench::replay
