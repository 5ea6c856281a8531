// Placement of configurations over processes and the combination of their outcomes.
#include "session/process_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "reports/report_row.hpp"

namespace collbench::dp {

ConfigPlacement place_configuration(int ranks, const ProcessLayout& layout) {
  ConfigPlacement placement;
  if (layout.single_process) {
    if (ranks > layout.visible_gpus) {
      placement.unsupported = fmt::format("needs {} GPU{}, {} visible", ranks,
                                          ranks == 1 ? "" : "s", layout.visible_gpus);
      return placement;
    }
    placement.makes_communicator = ranks > 1;
    placement.takes_part = true;
    return placement;
  }
  if (ranks > layout.world_size) {
    placement.unsupported = fmt::format("needs {} GPU{}, {} processes (one GPU each)", ranks,
                                        ranks == 1 ? "" : "s", layout.world_size);
    return placement;
  }
  placement.makes_communicator = ranks > 1;
  placement.takes_part = layout.world_rank < ranks;
  return placement;
}

namespace {
// In severity order.
const char* const kStatusesBySeverity[] = {report::kStatusOk, report::kStatusSkipped,
                                           report::kStatusTimeout, report::kStatusOom,
                                           report::kStatusError};
constexpr int kSeverities = sizeof(kStatusesBySeverity) / sizeof(kStatusesBySeverity[0]);
}  // namespace

int status_severity(std::string_view status) {
  for (int severity = 0; severity < kSeverities; ++severity) {
    if (status == kStatusesBySeverity[severity]) return severity;
  }
  return kSeverities - 1;  // an unknown status is an error
}

const char* status_of_severity(int severity) {
  return kStatusesBySeverity[std::clamp(severity, 0, kSeverities - 1)];
}

std::uint64_t agreement_key(int severity, int rank, int world_size) {
  if (rank < 0 || rank >= world_size)
    throw std::invalid_argument("agreement_key: rank outside the world");
  // Lower ranks get larger keys within one severity, so the maximum picks the lowest rank.
  return static_cast<std::uint64_t>(severity) * static_cast<std::uint64_t>(world_size) +
         static_cast<std::uint64_t>(world_size - 1 - rank);
}

WorstStatus decode_agreement_key(std::uint64_t key, int world_size) {
  const auto size = static_cast<std::uint64_t>(world_size);
  return {static_cast<int>(key / size), world_size - 1 - static_cast<int>(key % size)};
}

std::vector<std::uint8_t> reason_bytes(const std::string& reason, bool sending) {
  std::vector<std::uint8_t> bytes(kReasonBytes, 0);
  if (sending) {
    // The last byte stays zero: the text always ends inside the buffer.
    std::copy_n(reason.begin(), std::min(reason.size(), kReasonBytes - 1), bytes.begin());
  }
  return bytes;
}

std::string reason_from_bytes(const std::vector<std::uint8_t>& bytes) {
  const auto end = std::find(bytes.begin(), bytes.end(), 0);
  return std::string(bytes.begin(), end);
}

StepOutcome agreed_outcome(const StepOutcome& mine, int my_rank, const WorstStatus& worst,
                           const std::string& their_reason) {
  // The rank that had the worst status had it itself: it keeps its own outcome.
  if (status_severity(mine.status) == worst.severity || worst.rank == my_rank) return mine;
  return unmeasured(status_of_severity(worst.severity),
                    fmt::format("rank {}: {}", worst.rank, their_reason));
}

}  // namespace collbench::dp
