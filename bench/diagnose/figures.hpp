// What the diagnosis measures, as plain data: who each rank is, each GPU alone, every pair, the
// collectives on groups, when each rank arrived, and which ranks never came. The GPU side fills
// these; the verdict, the JSON report and the console summary only read them.
#pragma once

#include <optional>
#include <string>
#include <vector>

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
  double copy_gbps = 0;  // local device-to-device copy through an SM kernel
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

// One directed pair through NCCL send/recv.
struct PairFigures {
  int src = 0;
  int dst = 0;
  double bandwidth_gbps = 0;  // at one large size
  double latency_us = 0;      // at one small size
};

// One collective on one group of ranks.
struct GroupFigures {
  std::vector<int> ranks;
  std::string op;  // "all_reduce", "all_gather", "reduce_scatter", "alltoall"
  double busbw_gbps = 0;
  double time_us = 0;
  double expected_busbw_gbps = 0;  // what the pairs predict; 0 when not yet known
};

// How late a rank launched each iteration against the earliest rank, on average, and the op time
// it was measured in (lateness matters against that).
struct ArrivalFigures {
  int rank = 0;
  double mean_lateness_us = 0;
  double op_time_us = 0;
};

// A rank that never came to a probe (from its timeout).
struct MissingRank {
  int rank = 0;
  std::string what;  // "did not start all_reduce on ranks 0-7 within 30 s"
};

struct Measurements {
  std::vector<RankIdentity> ranks;
  std::vector<GpuFigures> gpus;
  std::vector<PairFigures> pairs;
  std::vector<GroupFigures> groups;
  std::vector<ArrivalFigures> arrivals;
  std::vector<MissingRank> missing;
  double link_peak_gbps = 0;  // from the link-peak probe; 0 when unknown
};

// The identity of `rank`, or null when the measurements do not name it.
const RankIdentity* identity_of(const Measurements& measurements, int rank);

}  // namespace collbench::diagnose
