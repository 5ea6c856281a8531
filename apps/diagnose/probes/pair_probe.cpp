// Pair rounds: each rank sends to or receives from at most one peer per round, gated.
#include "probes/pair_probe.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "probes/pair_schedule.hpp"
#include "probes/rank_records.hpp"
#include "reports/statistics.hpp"

namespace collbench::diagnose {
namespace {

// One rank's part in one round, as it travels between processes.
struct RoundRecord {
  int src = -1;  // -1: the rank sat the round out
  int dst = -1;
  double bandwidth_us = 0;      // this rank's median time of the large transfer
  double bandwidth_spread = 0;  // relative robust spread of those times
  double latency_us = 0;        // its median time of one latency sample (all its round trips)
  double latency_spread = 0;
};

// Where rank `rank` stands in `round`: the transfer it is in, if any.
const Transfer* transfer_of(const Round& round, int rank) {
  for (const Transfer& transfer : round) {
    if (transfer.src == rank || transfer.dst == rank) return &transfer;
  }
  return nullptr;
}

// The ranks of `round` that run on this process's host: the gate's count for the round.
int round_ranks_on_host(const Runner::RankSet& set, const Round& round) {
  const std::vector<int>& host_of = set.host_of_rank();
  const int here = host_of[set.count_rank(0)];
  int count = 0;
  for (const Transfer& transfer : round)
    count += (host_of[transfer.src] == here) + (host_of[transfer.dst] == here);
  return count;
}

// Enqueues one send (or receive) of `bytes` between `rank` and its peer in `transfer`, in a group.
void send_or_receive(const RankContext& rank, const Transfer& transfer, void* buffer,
                     std::size_t bytes, bool reply) {
  const bool sends = (transfer.src == rank.rank) != reply;
  const int peer = transfer.src == rank.rank ? transfer.dst : transfer.src;
  CB_NCCL_CHECK(ncclGroupStart());
  if (sends) {
    CB_NCCL_CHECK(ncclSend(buffer, bytes, ncclInt8, peer, rank.comm, rank.stream));
  } else {
    CB_NCCL_CHECK(ncclRecv(buffer, bytes, ncclInt8, peer, rank.comm, rank.stream));
  }
  CB_NCCL_CHECK(ncclGroupEnd());
}

// Times the transfers of `round` (bandwidth, then latency) and returns each one's figures.
std::vector<PairFigures> measure_round(Runner::RankSet& set, int ranks, const Round& round,
                                       std::vector<DeviceBuffer>& buffers,
                                       const PairProbeSettings& settings) {
  const int locals = set.size();
  std::vector<const Transfer*> mine(locals);
  TimedWork work;
  work.takes_part.resize(locals);
  for (int local = 0; local < locals; ++local) {
    mine[local] = transfer_of(round, set.contexts()[local].rank);
    work.takes_part[local] = mine[local] != nullptr;
  }
  work.warmup = settings.warmup;
  work.timeout_s = settings.timeout_s;
  work.gated_ranks_on_host = round_ranks_on_host(set, round);
  settings.faults.apply_to(work);
  std::vector<RoundRecord> records(locals);
  for (const bool large : {true, false}) {
    const std::size_t bytes = large ? settings.bandwidth_bytes : settings.latency_bytes;
    // Latency: src sends and receives the reply, dst receives and replies, round trip after
    // round trip; one sample is all of them.
    const int trips = large ? 1 : settings.latency_round_trips;
    work.launch = [&](int local, bool) {
      for (int trip = 0; trip < trips; ++trip) {
        send_or_receive(set.contexts()[local], *mine[local], buffers[local].get(), bytes, false);
        if (!large)
          send_or_receive(set.contexts()[local], *mine[local], buffers[local].get(), bytes, true);
      }
      return true;
    };
    work.iterations = large ? settings.bandwidth_iterations : settings.latency_samples;
    work.what = fmt::format("the pair round of {} transfers at {} B", round.size(), bytes);
    const std::vector<RankTimes> times = time_on_ranks(set, work);
    for (int local = 0; local < locals; ++local) {
      if (!mine[local]) continue;
      RoundRecord& record = records[local];
      record.src = mine[local]->src;
      record.dst = mine[local]->dst;
      (large ? record.bandwidth_us : record.latency_us) = stats::median(times[local].duration_us);
      (large ? record.bandwidth_spread : record.latency_spread) =
          relative_spread(times[local].duration_us);
    }
  }
  // Both ends started together. Bandwidth: the end that waited less (the shorter time) measured
  // the transfer. Latency: the initiator, whose span is exactly its round trips (the peer's ends
  // with its last reply sent, one trip short).
  const std::vector<RoundRecord> all =
      every_rank(set, records, ranks, settings.multi_process, settings.timeout_s);
  std::vector<PairFigures> pairs;
  for (const Transfer& transfer : round) {
    const RoundRecord& sender = all[transfer.src];
    const RoundRecord& receiver = all[transfer.dst];
    const RoundRecord& bandwidth = sender.bandwidth_us <= receiver.bandwidth_us ? sender : receiver;
    const RoundRecord& latency = sender;
    PairFigures figures;
    figures.src = transfer.src;
    figures.dst = transfer.dst;
    figures.bandwidth_gbps = bandwidth.bandwidth_us > 0
                                 ? settings.bandwidth_bytes / (bandwidth.bandwidth_us * 1e-6) / 1e9
                                 : 0;
    figures.bandwidth_spread = bandwidth.bandwidth_spread;
    figures.latency_us = latency.latency_us / (2.0 * settings.latency_round_trips);
    figures.latency_spread = latency.latency_spread;
    pairs.push_back(figures);
  }
  return pairs;
}

std::vector<DeviceBuffer> pair_buffers(const Runner::RankSet& set,
                                       const PairProbeSettings& settings) {
  std::vector<DeviceBuffer> buffers;
  for (const RankContext& rank : set.contexts()) {
    buffers.emplace_back(rank.device, std::max(settings.bandwidth_bytes, settings.latency_bytes));
  }
  return buffers;
}

}  // namespace

std::vector<PairFigures> probe_pairs(Runner::RankSet& set, int ranks,
                                     const PairProbeSettings& settings) {
  std::vector<DeviceBuffer> buffers = pair_buffers(set, settings);
  std::vector<PairFigures> pairs;
  for (const Round& round : pair_rounds(ranks)) {
    for (PairFigures& figures : measure_round(set, ranks, round, buffers, settings))
      pairs.push_back(figures);
  }
  return pairs;
}

std::vector<PairFigures> probe_pairs_alone(Runner::RankSet& set, int ranks,
                                           const std::vector<std::pair<int, int>>& pairs,
                                           const PairProbeSettings& settings) {
  std::vector<DeviceBuffer> buffers = pair_buffers(set, settings);
  std::vector<PairFigures> figures;
  for (const auto& [src, dst] : pairs) {
    figures.push_back(measure_round(set, ranks, {Transfer{src, dst}}, buffers, settings).front());
  }
  return figures;
}

}  // namespace collbench::diagnose
