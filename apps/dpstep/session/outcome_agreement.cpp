// Two small all-reduces per configuration: the worst status (and who had it), then its reason.
#include "session/outcome_agreement.hpp"

#include <cstdint>
#include <vector>

#include "runtime/completion_wait.hpp"
#include "runtime/host_collectives.hpp"
#include "session/process_plan.hpp"

namespace collbench::dp {

OutcomeAgreement::OutcomeAgreement(ProcessGroup& group)
    : rank_(group.rank()),
      size_(group.size()),
      device_(group.device()),
      everyone_(group.split_first(group.size())),
      stream_(group.device()) {}

StepOutcome OutcomeAgreement::agree(const StepOutcome& mine, double timeout_s) {
  const std::vector<RankContext> here = {{rank_, device_, stream_.get(), everyone_->get()}};
  auto wait = [&] {
    try {
      wait_for_completion(stream_targets(here), WaitDeadline::after(timeout_s),
                          "agreeing on a configuration's outcome with the other processes");
    } catch (...) {
      abort();
      throw;
    }
  };
  const std::uint64_t key = agreement_key(status_severity(mine.status), rank_, size_);
  const WorstStatus worst = decode_agreement_key(
      all_reduce_host_values<std::uint64_t>(here, {{key}}, ncclMax, wait).front(), size_);
  if (worst.severity == status_severity(report::kStatusOk)) return mine;
  // Only the chosen rank sends its reason; a maximum over zeros delivers it to everyone.
  const std::vector<std::uint8_t> reason = all_reduce_host_values<std::uint8_t>(
      here, {reason_bytes(mine.reason, worst.rank == rank_)}, ncclMax, wait);
  return agreed_outcome(mine, rank_, worst, reason_from_bytes(reason));
}

void OutcomeAgreement::abort() noexcept {
  if (everyone_) everyone_->abort();
}

}  // namespace collbench::dp
