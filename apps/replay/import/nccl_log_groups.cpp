// Which runs of send/recv lines in NCCL logs replay as groups (see the header).
#include "import/nccl_log_groups.hpp"

#include <algorithm>
#include <tuple>

namespace collbench::replay {

std::size_t PointToPointRuns::run_of(std::string_view thread, const NcclOpLine& line) {
  if (open_ && thread == thread_ && line.comm == comm_ && line.stream == stream_) return runs_ - 1;
  open_ = true;
  thread_ = thread;
  comm_ = line.comm;
  stream_ = line.stream;
  return runs_++;
}

void InferredGroups::add(int log, std::size_t run, int comm, int self, int peer, bool sends) {
  std::vector<Run>& runs = runs_[static_cast<std::size_t>(log)];
  if (runs.size() <= run) runs.resize(run + 1);
  ++runs[run].ops;
  Channel& channel =
      channels_[sends ? std::make_tuple(comm, self, peer) : std::make_tuple(comm, peer, self)];
  (sends ? channel.sends : channel.recvs).push_back({log, run});
}

bool InferredGroups::agrees(const Run& candidate) const {
  const std::vector<Partner>& partners = candidate.partners;  // sorted by communicator and peer
  for (std::size_t i = 0; i < partners.size(); ++i) {
    const RunRef other = partners[i].run;
    if (!runs_[static_cast<std::size_t>(other.log)][other.run].grouped) return false;
    // Every op of the run with this peer matches an op of one and the same run of the peer.
    if (i > 0 && partners[i - 1].comm == partners[i].comm &&
        partners[i - 1].peer == partners[i].peer &&
        (partners[i - 1].run.log != other.log || partners[i - 1].run.run != other.run)) {
      return false;
    }
  }
  return true;
}

void InferredGroups::settle() {
  for (const auto& [ends, channel] : channels_) {
    const auto& [comm, sender, receiver] = ends;
    // An op without its match stays a candidate alone: the workload check refuses the trace.
    const std::size_t matched = std::min(channel.sends.size(), channel.recvs.size());
    for (std::size_t k = 0; k < matched; ++k) {
      run(channel.sends[k]).partners.push_back({comm, receiver, channel.recvs[k]});
      run(channel.recvs[k]).partners.push_back({comm, sender, channel.sends[k]});
    }
  }
  for (std::vector<Run>& runs : runs_) {
    for (Run& candidate : runs) {
      candidate.grouped = candidate.ops > 1;
      std::stable_sort(candidate.partners.begin(), candidate.partners.end(),
                       [](const Partner& a, const Partner& b) {
                         return std::tie(a.comm, a.peer) < std::tie(b.comm, b.peer);
                       });
    }
  }
  // Splitting a run can undo its partners' agreement: repeat until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::vector<Run>& runs : runs_) {
      for (Run& candidate : runs) {
        if (candidate.grouped && !agrees(candidate)) {
          candidate.grouped = false;
          changed = true;
        }
      }
    }
  }
}

bool InferredGroups::grouped(int log, std::size_t run) const {
  const std::vector<Run>& runs = runs_[static_cast<std::size_t>(log)];
  return run < runs.size() && runs[run].grouped;
}

}  // namespace collbench::replay
