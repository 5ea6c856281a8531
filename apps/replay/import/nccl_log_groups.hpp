// Which runs of send/recv lines in NCCL logs replay as groups. The log has no group boundaries, so
// a run of send/recv lines (one thread, communicator and stream, no other op between) is only a
// candidate: it stays one group when every op's matching op on its peer lies in a candidate group
// too, the same one for all of the run's ops with that peer. NCCL sizes a send's steps from its
// group, so a send grouped on one side and received alone on the other is truncated or hangs.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "import/nccl_log_line.hpp"

namespace collbench::replay {

// Numbers one log's runs of send/recv lines in the order the importer meets them.
class PointToPointRuns {
 public:
  // The run a send/recv line belongs to: the current one if it continues it, else a new one.
  std::size_t run_of(std::string_view thread, const NcclOpLine& line);
  // Any other op ends the current run.
  void end_run() { open_ = false; }

 private:
  bool open_ = false;
  std::size_t runs_ = 0;
  std::string thread_, comm_, stream_;
};

class InferredGroups {
 public:
  explicit InferredGroups(std::size_t logs) : runs_(logs) {}
  // One send or recv of run `run` of log `log`, between communicator ranks `self` and `peer`.
  void add(int log, std::size_t run, int comm, int self, int peer, bool sends);
  // Matches sends with receives per pair of ranks in issue order and keeps the candidate groups
  // both sides agree on. Call once, after every add.
  void settle();
  bool grouped(int log, std::size_t run) const;

 private:
  struct RunRef {
    int log = 0;
    std::size_t run = 0;
  };
  struct Partner {
    int comm = 0, peer = 0;
    RunRef run;
  };
  struct Run {
    std::size_t ops = 0;
    bool grouped = false;
    std::vector<Partner> partners;
  };
  struct Channel {  // one direction between two ranks of a communicator
    std::vector<RunRef> sends, recvs;
  };
  Run& run(RunRef ref) { return runs_[static_cast<std::size_t>(ref.log)][ref.run]; }
  bool agrees(const Run& candidate) const;

  std::vector<std::vector<Run>> runs_;                     // per log, per run
  std::map<std::tuple<int, int, int>, Channel> channels_;  // (comm, sender, receiver)
};

}  // namespace collbench::replay
