// The arrival probe: every rank launches each iteration at the same scheduled moment; then every
// rank's durations and launch times, summarized by the shared arrival rule.
#include "probes/arrival_probe.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "algorithms/nccl_algorithm.hpp"
#include "core/collective_registry.hpp"
#include "core/errors.hpp"
#include "probes/rank_records.hpp"
#include "reports/arrival.hpp"
#include "reports/statistics.hpp"

namespace collbench::diagnose {
namespace {

constexpr int kMaxRecordedIterations = 1000;  // --arrival-iterations' bound

// How far ahead of its proposal the schedule starts (the warm-up runs first), and the least time
// between two launches: each iteration completes before the next, so nothing queues up.
constexpr double kScheduleLeadUs = 50'000;
constexpr double kLeastPeriodUs = 2'000;
// A conservative bandwidth for the spacing of large iterations: at four times what this gives,
// an all_reduce of any size completes within its period on any fabric worth diagnosing.
constexpr double kSlowestBytesPerUs = 5'000;  // 5 GB/s

// A rank's proposal for when the schedule starts, as it travels between processes.
struct ScheduleRecord {
  int host = 0;
  double start_us = 0;
};

// The schedule's start, the same on every rank of this host: the latest proposal of the host's
// ranks (they share one steady clock). Ranks on other hosts start by their own host's proposals,
// so across hosts a rank's lateness holds the hosts' skew leaving the gather too.
double schedule_start_us(Runner::RankSet& set, int ranks, const ArrivalProbeSettings& settings) {
  std::vector<ScheduleRecord> proposals;
  for (int local = 0; local < set.size(); ++local) {
    proposals.push_back(
        {set.host_of_rank()[set.count_rank(local)], steady_now_us() + kScheduleLeadUs});
  }
  const int here = proposals.front().host;
  double start_us = 0;
  for (const ScheduleRecord& record :
       every_rank(set, proposals, ranks, settings.multi_process, settings.timeout_s)) {
    if (record.host == here) start_us = std::max(start_us, record.start_us);
  }
  return start_us;
}

// One rank's iterations, as they travel between processes.
struct ArrivalRecord {
  int rank = -1;
  int host = 0;
  int iterations = 0;
  double duration_us[kMaxRecordedIterations] = {};
  double launch_us[kMaxRecordedIterations] = {};
};

}  // namespace

std::vector<ArrivalFigures> probe_arrivals(Runner::RankSet& set, int ranks,
                                           const ArrivalProbeSettings& settings) {
  const int locals = set.size();
  const CollectiveSpec& spec = find_collective("all_reduce");
  const ElementCounts counts = spec.counts(std::max<std::size_t>(settings.bytes / sizeof(float), 1),
                                           sizeof(float), ranks, nullptr);
  const CaseShape shape{&spec, counts, DataType::float32, ReduceOp::sum, -1, ranks, false};
  std::vector<DeviceBuffer> sends, receives;
  for (const RankContext& rank : set.contexts()) {
    sends.emplace_back(rank.device, counts.send * sizeof(float));
    receives.emplace_back(rank.device, counts.recv * sizeof(float));
  }
  TimedWork work;
  work.takes_part.assign(locals, true);
  work.warmup = settings.warmup;
  work.iterations = std::min(settings.iterations, kMaxRecordedIterations);
  work.timeout_s = settings.timeout_s;
  work.what = fmt::format("the arrival all_reduce on ranks 0-{}", ranks - 1);
  settings.faults.apply_to(work);
  work.launch = [&](int local, bool timed) {
    if (timed && settings.faults.skips && settings.faults.skips(local)) return false;
    launch_nccl_group({set.contexts()[local]}, {{sends[local].get(), receives[local].get()}}, shape,
                      1);
    return true;
  };
  // Every rank launches iteration t at the same moment of the host's clock: a barrier would not
  // do, since the last rank into it (a starved one) is the first out.
  const double start_us = schedule_start_us(set, ranks, settings);
  const double period_us =
      std::max(kLeastPeriodUs, 4 * static_cast<double>(settings.bytes) / kSlowestBytesPerUs);
  work.launch_at_us = [start_us, period_us](int iteration) {
    return start_us + iteration * period_us;
  };
  const std::vector<RankTimes> times = time_on_ranks(set, work);
  std::vector<ArrivalRecord> records(locals);
  for (int local = 0; local < locals; ++local) {
    ArrivalRecord& record = records[local];
    record.rank = set.contexts()[local].rank;
    record.host = set.host_of_rank()[set.count_rank(local)];
    record.iterations = work.iterations;
    std::copy(times[local].duration_us.begin(), times[local].duration_us.end(), record.duration_us);
    std::copy(times[local].launch_us.begin(), times[local].launch_us.end(), record.launch_us);
  }
  const std::vector<ArrivalRecord> all =
      every_rank(set, records, ranks, settings.multi_process, settings.timeout_s);
  std::vector<std::vector<double>> durations(ranks), launches(ranks);
  std::vector<int> hosts(ranks);
  std::vector<double> longest(work.iterations, 0.0);
  for (const ArrivalRecord& record : all) {
    durations[record.rank].assign(record.duration_us, record.duration_us + record.iterations);
    launches[record.rank].assign(record.launch_us, record.launch_us + record.iterations);
    hosts[record.rank] = record.host;
    for (int t = 0; t < record.iterations; ++t)
      longest[t] = std::max(longest[t], record.duration_us[t]);
  }
  const std::vector<stats::RankArrival> summary = stats::summarize_arrivals(
      durations, launches, hosts, stats::LatenessMean::latest_tenth_aside);
  std::vector<ArrivalFigures> figures;
  for (int rank = 0; rank < ranks; ++rank) {
    ArrivalFigures f;
    static_cast<stats::RankArrival&>(f) = summary[rank];
    f.rank = rank;
    f.op_time_us = stats::median(longest);
    figures.push_back(f);
  }
  return figures;
}

}  // namespace collbench::diagnose
