// Launch counts, the timeout message and the exchange of progress between processes.
#include "measure/case_progress.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "launch/mpi_bootstrap.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench {
namespace {

std::string identity(const RankProgress& rank) {
  const std::string bus = rank.pci_bus_id.empty() ? "" : fmt::format(" [{}]", rank.pci_bus_id);
  return fmt::format("rank {} (host {}, GPU {}{})", rank.rank, rank.host, rank.device, bus);
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : std::string(separator)) + item;
  return text;
}

// A rank's progress as it travels between processes: fixed size, plain bytes.
struct ProgressRecord {
  std::int32_t rank;
  std::int32_t device;
  std::int32_t idle;
  std::int32_t unused;
  std::int64_t launched;
  std::int64_t expected;
  char host[64];
  char pci_bus_id[32];
};

std::vector<char> encode(const RankProgress& progress) {
  ProgressRecord record{};
  record.rank = progress.rank;
  record.device = progress.device;
  record.idle = progress.idle ? 1 : 0;
  record.launched = progress.launched;
  record.expected = progress.expected;
  progress.host.copy(record.host, sizeof(record.host) - 1);
  progress.pci_bus_id.copy(record.pci_bus_id, sizeof(record.pci_bus_id) - 1);
  std::vector<char> bytes(sizeof(record));
  std::memcpy(bytes.data(), &record, sizeof(record));
  return bytes;
}

std::optional<RankProgress> decode(const std::vector<char>& bytes) {
  if (bytes.size() != sizeof(ProgressRecord)) return std::nullopt;
  ProgressRecord record{};
  std::memcpy(&record, bytes.data(), sizeof(record));
  record.host[sizeof(record.host) - 1] = '\0';
  record.pci_bus_id[sizeof(record.pci_bus_id) - 1] = '\0';
  return RankProgress{record.rank,     record.host,     record.device,   record.pci_bus_id,
                      record.launched, record.expected, record.idle != 0};
}

}  // namespace

LaunchCounts::LaunchCounts(int local_ranks)
    : launched_(std::make_unique<std::atomic<std::int64_t>[]>(local_ranks)) {
  for (int local = 0; local < local_ranks; ++local) launched_[local] = 0;
}

std::string timeout_message(std::string_view case_name, double timeout_s, int ranks,
                            std::vector<RankProgress> reported, UnreportedRanks unreported) {
  std::sort(reported.begin(), reported.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  std::int64_t asked = 0;
  for (const RankProgress& rank : reported) asked = std::max({asked, rank.expected, rank.launched});
  std::vector<std::string> behind, running, finished, missing;
  for (const RankProgress& rank : reported) {
    if (rank.launched < asked) {
      behind.push_back(fmt::format("{} had not started operation {} of {} (launched {}, {})",
                                   identity(rank), rank.launched + 1, asked, rank.launched,
                                   rank.idle ? "idle" : "busy"));
    } else {
      (rank.idle ? finished : running).push_back(identity(rank));
    }
  }
  for (int rank = 0; rank < ranks; ++rank) {
    const auto found = std::find_if(reported.begin(), reported.end(),
                                    [&](const auto& r) { return r.rank == rank; });
    if (found == reported.end()) missing.push_back(fmt::format("rank {}", rank));
  }
  std::vector<std::string> parts = behind;
  if (!running.empty()) {
    parts.push_back((behind.empty()
                         ? fmt::format("launched all {} operations, still running: ", asked)
                         : std::string("waiting inside it: ")) +
                    join(running, ", "));
  }
  if (!finished.empty()) parts.push_back("finished: " + join(finished, ", "));
  if (!missing.empty()) {
    parts.push_back((unreported == UnreportedRanks::absent
                         ? "absent (no answer over MPI): "
                         : "unknown (other processes, no MPI to ask): ") +
                    join(missing, ", "));
  }
  return fmt::format("{} did not finish within {:g} s: {}", case_name, timeout_s,
                     join(parts, "; "));
}

RankProgress local_rank_progress(int rank, int device, std::int64_t launched, std::int64_t expected,
                                 bool idle) {
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device) != cudaSuccess) {
    cudaGetLastError();  // the message goes out without the bus id
    bus[0] = '\0';
  }
  return {rank, host_name(), device, bus, launched, expected, idle};
}

std::optional<std::vector<RankProgress>> exchange_progress(const RankProgress& mine, int ranks,
                                                           double answer_wait_s) {
  // One rank per process: the case's processes are world ranks [0, ranks).
  std::vector<std::optional<std::vector<char>>> answers;
  try {
    answers = mpi_exchange_bounded(encode(mine), ranks, answer_wait_s);
  } catch (const std::exception&) {  // MPI failed too
    return std::nullopt;
  }
  std::vector<RankProgress> reported;
  for (const auto& answer : answers) {
    if (!answer) continue;
    if (std::optional<RankProgress> progress = decode(*answer)) reported.push_back(*progress);
  }
  return reported;
}

std::string describe_timeout(std::string_view case_name, double timeout_s, int ranks,
                             const std::vector<RankProgress>& local, bool ask_over_mpi,
                             double answer_wait_s) {
  if (ask_over_mpi && !local.empty()) {
    if (auto reported = exchange_progress(local.front(), ranks, answer_wait_s)) {
      return timeout_message(case_name, timeout_s, ranks, *reported, UnreportedRanks::absent);
    }
  }
  // No MPI to ask (or it failed too): what this process knows still goes out.
  return timeout_message(case_name, timeout_s, ranks, local, UnreportedRanks::unknown);
}

}  // namespace collbench
