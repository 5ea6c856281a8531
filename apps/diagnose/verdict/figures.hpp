// What the diagnosis measures, as plain data: who each rank is, each GPU alone, every pair, the
// collectives on groups, when each rank arrived, and which ranks never came. The GPU side fills
// these; the verdict, the JSON report and the console summary only read them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/arrival.hpp"

namespace collbench::diagnose {

struct RankIdentity {
  int rank = 0;
  std::string host;
  int local_gpu = 0;       // the CUDA device index on its host
  std::string pci_bus_id;  // "0000:1B:00.0"
};

// One GPU alone. NVML readings are absent where NVML (or the counter) is not available.
struct GpuFigures {
  int rank = 0;
  // Local device-to-device copy through an SM kernel, sustained: bytes over the whole window of
  // back-to-back copies (at least --copy-window-ms), so that time the GPU gives to another
  // process's work (time slices of milliseconds) counts, as it does for a job.
  double copy_gbps = 0;
  // The copy's own spread: 1.4826 x the median absolute deviation of its per-copy bandwidths over
  // their median (0.01 = 1%).
  double copy_spread = 0;
  // Arithmetic alone (fused multiply-adds in registers on every SM, no memory traffic), sustained
  // over the same kind of window: slow when the SMs are taken (another process's kernels, a
  // braked clock), not when only memory is busy (the links' traffic shares the memory with the
  // copy, not the SMs). TFLOP/s of FP32.
  double compute_tflops = 0;
  double compute_spread = 0;  // like copy_spread
  // Compute processes NVML sees on this GPU besides this run's (absent where NVML cannot tell).
  std::optional<unsigned> other_processes;
  std::optional<double> sm_clock_mhz;
  std::optional<double> max_sm_clock_mhz;
  std::optional<double> power_w;
  std::optional<unsigned long long> clock_event_reasons;  // NVML's bit mask
  std::optional<unsigned long long> ecc_uncorrected;
  std::optional<unsigned long long> ecc_corrected;
  std::optional<unsigned long long> nvlink_replay;
  std::optional<unsigned long long> nvlink_recovery;
  std::optional<unsigned long long> nvlink_crc;
};

// One directed pair through NCCL send/recv, both ends released together by a start gate, so
// that when each end's host launched enters neither figure.
struct PairFigures {
  int src = 0;
  int dst = 0;
  double bandwidth_gbps = 0;  // at one large size, src -> dst
  // At one small size: half of a round trip src -> dst -> src, from round trips back to back
  // inside one gated launch.
  double latency_us = 0;
  // Each figure's own spread over its samples, relative (1.4826 x MAD / median).
  double bandwidth_spread = 0;
  double latency_spread = 0;
};

// One collective on one group of ranks.
struct GroupFigures {
  std::vector<int> ranks;
  std::string op;  // "all_reduce", "all_gather", "reduce_scatter", "alltoall"
  double busbw_gbps = 0;
  double time_us = 0;
  double expected_busbw_gbps = 0;  // what the pairs predict; 0 when not yet known
};

// When a rank arrived at a collective, from the arrival probe: every iteration launched by every
// rank right after a barrier, with nothing queued, so that a late host or a busy GPU shows as it
// would in a job. Figures of reports/lib/arrival.hpp (summarize_arrivals), and the op time they
// were measured in (lateness matters against that).
// The arrival rule's figures of one rank (reports/lib/arrival.hpp), with the rank and the op time.
// `host` is not saved with a diagnosis: the verdict numbers hosts by the ranks' identities.
struct ArrivalFigures : stats::RankArrival {
  int rank = 0;
  double op_time_us = 0;
};

// A rank that never came to a probe (from its timeout).
struct MissingRank {
  int rank = 0;
  std::string what;  // "did not start all_reduce on ranks 0-7 within 30 s"
};

// Second, targeted measurements of the figures a first judgement flagged (verdict.hpp,
// to_recheck): the GPU alone for longer, the pair alone with no other transfer running, the
// arrival probe again with more iterations. A figure is a suspect's evidence only when its
// recheck is flagged too.
struct Rechecks {
  std::vector<GpuFigures> gpus;
  std::vector<PairFigures> pairs;
  std::vector<ArrivalFigures> arrivals;
  bool empty() const { return gpus.empty() && pairs.empty() && arrivals.empty(); }
};

struct Measurements {
  std::vector<RankIdentity> ranks;
  std::vector<GpuFigures> gpus;
  std::vector<PairFigures> pairs;
  std::vector<GroupFigures> groups;
  std::vector<ArrivalFigures> arrivals;
  std::vector<MissingRank> missing;
  Rechecks rechecks;
  double link_peak_gbps = 0;  // a healthy machine's link peak (--link-peak); 0 when not given
};

// The identity of `rank`, or null when the measurements do not name it.
const RankIdentity* identity_of(const Measurements& measurements, int rank);

}  // namespace collbench::diagnose
