// Pair rounds: each rank sends to or receives from at most one peer per round.
#include "pair_probe.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "pair_schedule.hpp"
#include "rank_records.hpp"
#include "statistics.hpp"

namespace collbench::diagnose {
namespace {

// One rank's part in one round, as it travels between processes.
struct RoundRecord {
  int src = -1;  // -1: the rank sat the round out
  int dst = -1;
  double bandwidth_us = 0;  // this rank's median time of the large transfer
  double latency_us = 0;    // and of the small one
};

// Where local rank `local` stands in `round`: the transfer it is in, if any.
const Transfer* transfer_of(const Round& round, int rank) {
  for (const Transfer& transfer : round) {
    if (transfer.src == rank || transfer.dst == rank) return &transfer;
  }
  return nullptr;
}

}  // namespace

std::vector<PairFigures> probe_pairs(Runner::RankSet& set, int ranks, const PairProbeSettings& settings) {
  const int locals = set.size();
  std::vector<DeviceBuffer> buffers;
  for (int local = 0; local < locals; ++local) {
    buffers.emplace_back(set.contexts()[local].device, settings.bandwidth_bytes);
  }
  std::vector<PairFigures> pairs;
  for (const Round& round : pair_rounds(ranks)) {
    std::vector<const Transfer*> mine(locals);
    TimedWork work;
    work.takes_part.resize(locals);
    for (int local = 0; local < locals; ++local) {
      mine[local] = transfer_of(round, set.contexts()[local].rank);
      work.takes_part[local] = mine[local] != nullptr;
    }
    work.warmup = settings.warmup;
    work.timeout_s = settings.timeout_s;
    settings.faults.apply_to(work);
    std::size_t bytes = 0;
    work.launch = [&](int local, bool) {
      const RankContext& rank = set.contexts()[local];
      const Transfer& transfer = *mine[local];
      CB_NCCL_CHECK(ncclGroupStart());
      if (transfer.src == rank.rank) {
        CB_NCCL_CHECK(ncclSend(buffers[local].get(), bytes, ncclInt8, transfer.dst, rank.comm, rank.stream));
      } else {
        CB_NCCL_CHECK(ncclRecv(buffers[local].get(), bytes, ncclInt8, transfer.src, rank.comm, rank.stream));
      }
      CB_NCCL_CHECK(ncclGroupEnd());
      return true;
    };
    std::vector<RoundRecord> records(locals);
    for (const bool large : {true, false}) {
      bytes = large ? settings.bandwidth_bytes : settings.latency_bytes;
      work.iterations = large ? settings.bandwidth_iterations : settings.latency_iterations;
      work.what = fmt::format("the pair round of {} transfers at {} B", round.size(), bytes);
      const std::vector<RankTimes> times = time_on_ranks(set, work);
      for (int local = 0; local < locals; ++local) {
        if (!mine[local]) continue;
        records[local].src = mine[local]->src;
        records[local].dst = mine[local]->dst;
        (large ? records[local].bandwidth_us : records[local].latency_us) = stats::median(times[local].duration_us);
      }
    }
    // Both ends timed the transfer from their own launch; the end that came later waited less, so
    // the shorter time is the transfer's (a late peer must not pass for a slow link).
    const std::vector<RoundRecord> all = every_rank(set, records, ranks, settings.multi_process, settings.timeout_s);
    for (const Transfer& transfer : round) {
      const RoundRecord& sender = all[transfer.src];
      const RoundRecord& receiver = all[transfer.dst];
      const double bandwidth_us = std::min(sender.bandwidth_us, receiver.bandwidth_us);
      PairFigures figures;
      figures.src = transfer.src;
      figures.dst = transfer.dst;
      figures.bandwidth_gbps = bandwidth_us > 0 ? settings.bandwidth_bytes / (bandwidth_us * 1e-6) / 1e9 : 0;
      figures.latency_us = std::min(sender.latency_us, receiver.latency_us);
      pairs.push_back(figures);
    }
  }
  return pairs;
}

}  // namespace collbench::diagnose
