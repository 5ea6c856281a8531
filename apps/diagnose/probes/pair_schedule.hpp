// The order in which the diagnosis measures every pair of ranks: rounds of transfers that share
// no GPU, so that a round runs its transfers at once and every pair is measured in O(N) rounds.
#pragma once

#include <vector>

namespace collbench::diagnose {

// One directed transfer: `src` sends, `dst` receives.
struct Transfer {
  int src = 0;
  int dst = 0;
};

// Transfers that run at once: no rank appears in two of them, so a rank only sends or only
// receives within a round and each measurement sees one link alone.
using Round = std::vector<Transfer>;

// Every ordered pair (a -> b, a != b) of `ranks` ranks exactly once over all rounds. The circle
// method (a round-robin tournament, with a bye for odd N) pairs the ranks into N - 1 matchings
// (N for odd N); each matching becomes two rounds, a -> b and then b -> a. Hence 2(N - 1) rounds
// for even N and 2N for odd N; none for fewer than 2 ranks.
std::vector<Round> pair_rounds(int ranks);

}  // namespace collbench::diagnose
