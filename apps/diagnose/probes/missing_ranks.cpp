// Naming the ranks that stopped a probe.
#include "probes/missing_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "report/figure_text.hpp"

namespace collbench::diagnose {
std::vector<MissingRank> missing_ranks(const std::string& what,
                                       const std::vector<RankProgress>& reported, int ranks,
                                       bool everyone_asked) {
  std::int64_t asked = 0;
  for (const RankProgress& progress : reported) asked = std::max(asked, progress.expected);
  bool someone_behind = false;
  std::vector<int> waiting;
  for (const RankProgress& progress : reported) {
    someone_behind = someone_behind || progress.launched < asked;
    if (progress.launched >= asked && !progress.idle) waiting.push_back(progress.rank);
  }
  // A rank still running waits for someone: behind, or not heard from.
  bool all_reported = true;
  for (int rank = 0; rank < ranks; ++rank) {
    all_reported =
        all_reported && std::any_of(reported.begin(), reported.end(),
                                    [rank](const RankProgress& p) { return p.rank == rank; });
  }
  std::vector<MissingRank> missing;
  for (int rank = 0; rank < ranks; ++rank) {
    const auto found =
        std::find_if(reported.begin(), reported.end(),
                     [rank](const RankProgress& progress) { return progress.rank == rank; });
    std::string why;
    if (found == reported.end()) {
      why = everyone_asked
                ? "absent: no answer over MPI"
                : fmt::format("another process, with no MPI to ask it; ranks {} were waiting",
                              rank_list(waiting));
    } else if (found->launched < asked) {
      why = fmt::format("had not started operation {} of {} (launched {}{})", found->launched + 1,
                        asked, found->launched, found->idle ? ", idle" : "");
    } else if (!someone_behind && all_reported && !found->idle) {
      why = fmt::format("launched all {} operations, which never finished", asked);
    } else {
      continue;  // waited for the others, or finished
    }
    missing.push_back({rank, fmt::format("{}: {}", what, why)});
  }
  return missing;
}

}  // namespace collbench::diagnose
