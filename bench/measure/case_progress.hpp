// How far each rank got in a case, and the timeout message built from it: which ranks (host,
// GPU) had not started an operation their peers were waiting in, which were waiting, and which
// did not answer. Learned over MPI between processes, never over the communicator that hung.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// Per local rank, the operations its worker has launched in the current case (warm-up, timed and
// checked collectives; a graph replay counts as the operations in the graph), and how many the
// runner has asked every rank for by now. Workers add; the runner reads at a timeout.
class LaunchCounts {
 public:
  explicit LaunchCounts(int local_ranks);
  // The runner, before the workers launch the next `operations` each.
  void expect(std::int64_t operations) { expected_ += operations; }
  // Rank `local`'s worker, once it has launched `operations` more.
  void add(int local, std::int64_t operations = 1) {
    launched_[local].fetch_add(operations, std::memory_order_relaxed);
  }
  std::int64_t launched(int local) const {
    return launched_[local].load(std::memory_order_relaxed);
  }
  std::int64_t expected() const { return expected_.load(); }

 private:
  std::unique_ptr<std::atomic<std::int64_t>[]> launched_;
  std::atomic<std::int64_t> expected_{0};
};

// One rank of a timed-out case as its process saw it at the deadline.
struct RankProgress {
  int rank = 0;
  std::string host;
  int device = 0;
  std::string pci_bus_id;     // "0000:07:00.0"; empty when unknown
  std::int64_t launched = 0;  // operations launched in the case
  std::int64_t expected = 0;  // operations its process had asked for by then
  bool idle = false;          // its stream had nothing left to run
};

// Why the ranks that are not among the reported ones are missing.
enum class UnreportedRanks {
  absent,   // their processes did not answer over MPI
  unknown,  // other processes, and no MPI to ask them (env launcher)
};

// "CASE did not finish within T s: " and then, by rank: each rank that launched fewer operations
// than the most any rank was asked for ("rank 1 (host h, GPU 1 [0000:07:00.0]) had not started
// operation 11 of 20 (launched 10, idle)"); the ranks that launched them all and are still
// running ("waiting inside it: rank 0 (...)", or "launched all 20 operations, still running: ..."
// when no rank is behind); those that launched all and are idle ("finished: ..."); then the
// unreported ranks of [0, ranks), absent or unknown. Parts are joined by "; ". Pure.
std::string timeout_message(std::string_view case_name, double timeout_s, int ranks,
                            std::vector<RankProgress> reported, UnreportedRanks unreported);

// A local rank's progress, with this host's name and the PCI bus id of `device`.
RankProgress local_rank_progress(int rank, int device, std::int64_t launched, std::int64_t expected,
                                 bool idle);

inline constexpr double kProgressAnswerWaitS = 5;

// Under mpirun (one rank per process, world ranks [0, ranks)), after a timeout that every process
// meets on its own: each process's progress, swapped over MPI point to point; a process silent
// for `answer_wait_s` is left out. Nothing when MPI itself fails.
std::optional<std::vector<RankProgress>> exchange_progress(
    const RankProgress& mine, int ranks, double answer_wait_s = kProgressAnswerWaitS);

// The timeout message of a case of `ranks` ranks: this process's ranks from `local`; with
// `ask_over_mpi` (one rank per process, launched by mpirun), the case's processes, world ranks
// [0, ranks), swap their progress over MPI (each times out on its own; one silent for
// `answer_wait_s` is absent); otherwise the ranks of other processes are unknown.
std::string describe_timeout(std::string_view case_name, double timeout_s, int ranks,
                             const std::vector<RankProgress>& local, bool ask_over_mpi,
                             double answer_wait_s = kProgressAnswerWaitS);

}  // namespace collbench
