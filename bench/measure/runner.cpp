// The runner: a rank set per GPU count and communicator settings, each case measured in it
// (case_measurement.cpp), and failures turned into rows.
#include "measure/runner.hpp"

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "measure/case_measurement.hpp"
#include "measure/rank_set.hpp"
#include "reports/report_row.hpp"

namespace collbench {

Runner::Runner(const MeasureSettings& settings, ProcessGroup* group, MeasurementHooksFactory hooks)
    : settings_(settings), group_(group), hooks_(std::move(hooks)) {}

Runner::~Runner() {
  if (stopped()) abort_all();
}

void Runner::abort_all() noexcept {
  for (auto& [ranks, set] : sets_) set->abort_all();
}

Runner::RankSet& Runner::rank_set(const Case& c) {
  // Each pass of --repeat on communicators and buffers of its own: their state (NCCL's channels,
  // where buffers lie) moves a case by as much as a new process does, and the spread between
  // passes must show that drift, not hide it.
  RankSetKey key{c.ranks, communicator_config(c.communicator, c.ranks), c.repeat};
  auto found = sets_.find(key);
  if (found != sets_.end()) return *found->second;
  // The sweep is grouped by GPU count and communicator settings: free the previous set's buffers
  // and communicators (and restore its NCCL environment) first.
  sets_.clear();
  auto set = group_ ? std::make_unique<RankSet>(*group_, c.ranks, c.communicator)
                    : std::make_unique<RankSet>(c.ranks, c.communicator);
  return *sets_.emplace(std::move(key), std::move(set)).first->second;
}

CaseOutcome Runner::run(const Case& c) {
  CaseOutcome outcome;
  if (!c.skip_reason.empty()) {
    outcome.status = report::kStatusSkipped;
    outcome.reason = c.skip_reason;
    return outcome;
  }
  try {
    return measure(rank_set(c), c);
  } catch (const GpuError& error) {
    if (error.out_of_memory()) {
      for (auto& [key, set] : sets_) set->release_buffers();
      outcome.status = report::kStatusOom;
      outcome.reason = error.what();
      return outcome;
    }
    outcome.status = report::kStatusError;
    outcome.reason = error.what();
  } catch (const CaseTimeout& error) {
    outcome.status = report::kStatusTimeout;
    outcome.reason = error.what();
  } catch (const Interrupted& interrupted) {
    stop_reason_ = interrupted.what();
    abort_all();
    throw;
  }
  stop_reason_ = outcome.reason;
  abort_all();
  return outcome;
}

CaseOutcome Runner::measure(RankSet& set, const Case& c) {
  std::vector<int> local_ranks;
  for (int local = 0; local < set.size(); ++local) local_ranks.push_back(set.count_rank(local));
  std::unique_ptr<MeasurementHooks> hooks =
      hooks_ ? hooks_(local_ranks, c.ranks) : std::make_unique<MeasurementHooks>();
  return CaseMeasurement(set, c, settings_, group_, std::move(hooks)).run();
}

}  // namespace collbench
