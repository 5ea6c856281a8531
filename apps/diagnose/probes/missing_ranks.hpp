// Who stopped a probe that timed out: from each rank's progress as its process saw it at the
// deadline (all of them under mpirun, swapped over MPI; this process's alone otherwise).
#pragma once

#include <string>
#include <vector>

#include "measure/case_progress.hpp"
#include "verdict/figures.hpp"

namespace collbench::diagnose {

// Every rank of [0, ranks) that stopped `what`: one that launched fewer operations than the most
// any rank was asked for (had not started the next one); when every rank reported and nobody is
// behind, one that launched them all and is still running (hangs inside it); one not in `reported`:
// absent when `everyone_asked` (its process did not answer), else of another process nobody could
// ask. Ranks that waited for the others, or finished, are not named. Pure.
std::vector<MissingRank> missing_ranks(const std::string& what,
                                       const std::vector<RankProgress>& reported, int ranks,
                                       bool everyone_asked);

}  // namespace collbench::diagnose
