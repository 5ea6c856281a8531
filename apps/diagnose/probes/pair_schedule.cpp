// The circle method: rank 0 stays put while the others turn one seat per matching.
#include "probes/pair_schedule.hpp"

namespace collbench::diagnose {

std::vector<Round> pair_rounds(int ranks) {
  if (ranks < 2) return {};
  // An odd count gets one empty seat (the bye): whoever faces it sits the matching out.
  const int seats = ranks + ranks % 2;
  std::vector<int> circle(seats);
  for (int seat = 0; seat < seats; ++seat) circle[seat] = seat;
  std::vector<Round> rounds;
  for (int matching = 0; matching < seats - 1; ++matching) {
    Round forward, backward;
    for (int seat = 0; seat < seats / 2; ++seat) {
      const int a = circle[seat];
      const int b = circle[seats - 1 - seat];
      if (a >= ranks || b >= ranks) continue;  // the bye
      forward.push_back({a, b});
      backward.push_back({b, a});
    }
    rounds.push_back(std::move(forward));
    rounds.push_back(std::move(backward));
    // Turn every seat but the first one place.
    const int last = circle.back();
    for (int seat = seats - 1; seat > 1; --seat) circle[seat] = circle[seat - 1];
    circle[1] = last;
  }
  return rounds;
}

}  // namespace collbench::diagnose
