// The rules about one rank: missing ranks, slow GPUs (alone, by their counters, or by every pair
// they are in) and stragglers.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "statistics.hpp"
#include "verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

// NVML clock-event reasons that mean the GPU is braked by heat or power, not idling: HW slowdown
// (0x8), SW thermal (0x20), HW thermal (0x40), HW power brake (0x80).
struct BrakeReason {
  unsigned long long bit;
  const char* name;
};
constexpr BrakeReason kBrakeReasons[] = {
    {0x8, "HW slowdown"}, {0x20, "SW thermal"}, {0x40, "HW thermal"}, {0x80, "HW power brake"}};

unsigned long long brake_bits(const GpuFigures& gpu) {
  unsigned long long bits = 0;
  for (const BrakeReason& reason : kBrakeReasons) bits |= reason.bit;
  return gpu.clock_event_reasons.value_or(0) & bits;
}

// A GPU braked while another is not: when every GPU is braked (a machine-wide power cap), the
// copy figures judge what it costs, not the reasons.
std::optional<std::string> brake_evidence(const Judging& judging, const GpuFigures& gpu) {
  const unsigned long long bits = brake_bits(gpu);
  if (!bits) return std::nullopt;
  const auto& gpus = judging.measurements.gpus;
  const bool another_runs_free = std::any_of(gpus.begin(), gpus.end(), [](const GpuFigures& other) {
    return other.clock_event_reasons && brake_bits(other) == 0;
  });
  if (!another_runs_free) return std::nullopt;
  std::vector<std::string> names;
  for (const BrakeReason& reason : kBrakeReasons) {
    if (bits & reason.bit) names.push_back(reason.name);
  }
  std::string text = fmt::format("clock events {} (0x{:x}) while other GPUs have none",
                                 fmt::join(names, ", "), bits);
  if (gpu.sm_clock_mhz && gpu.max_sm_clock_mhz) {
    text +=
        fmt::format("; SM clock {:.0f} of {:.0f} MHz", *gpu.sm_clock_mhz, *gpu.max_sm_clock_mhz);
  }
  return text;
}

std::optional<Suspect> judge_gpu(const Judging& judging, const GpuFigures& gpu,
                                 bool pairs_explained) {
  const Reading copy{gpu.copy_gbps, judging.expectations.copy_gbps};
  Suspect suspect = rank_suspect(judging, SuspectKind::slow_gpu, gpu.rank, copy);
  if (copy.ratio() < judging.thresholds.slow_ratio) {
    suspect.evidence.push_back(fmt::format("copy {:.0f} GB/s against the best GPU's {:.0f} ({})",
                                           copy.figure, copy.expectation,
                                           ratio_text(copy.ratio())));
  }
  // Every pair with the rank slow while some pair without it is not: the GPU is slow rather than
  // its N - 1 links.
  const auto with_rank = [&](const PairFigures& pair) {
    return pair.src == gpu.rank || pair.dst == gpu.rank;
  };
  const auto without_rank = [&](const PairFigures& pair) { return !with_rank(pair); };
  const std::optional<LeastSlowPair> least =
      pairs_explained ? std::nullopt : every_pair_slow(judging, with_rank, without_rank);
  if (least) {
    weigh(suspect, least->reading.worst());
    suspect.evidence.push_back(
        fmt::format("every pair with rank {} is slow, the least of them {}", gpu.rank,
                    fmt::join(pair_evidence(judging, *least->pair, least->reading), "; ")));
  }
  if (gpu.ecc_uncorrected.value_or(0) > 0) {
    suspect.evidence.push_back(fmt::format("{} uncorrected ECC errors", *gpu.ecc_uncorrected));
  }
  if (std::optional<std::string> brake = brake_evidence(judging, gpu)) {
    suspect.evidence.push_back(*brake);
  }
  if (suspect.evidence.empty()) return std::nullopt;
  return suspect;
}

}  // namespace

std::vector<Suspect> missing_rank_suspects(const Judging& judging) {
  std::vector<Suspect> suspects;
  for (const MissingRank& missing : judging.measurements.missing) {
    Suspect suspect = rank_suspect(judging, SuspectKind::missing_rank, missing.rank, {});
    suspect.evidence.push_back(missing.what);
    suspects.push_back(std::move(suspect));
  }
  return suspects;
}

std::vector<Suspect> slow_gpu_suspects(const Judging& judging,
                                       const std::vector<Suspect>& explained) {
  std::vector<Suspect> suspects;
  for (const GpuFigures& gpu : judging.measurements.gpus) {
    const bool pairs_explained =
        std::any_of(explained.begin(), explained.end(),
                    [&](const Suspect& suspect) { return names_rank(suspect, gpu.rank); });
    if (std::optional<Suspect> suspect = judge_gpu(judging, gpu, pairs_explained)) {
      suspects.push_back(std::move(*suspect));
    }
  }
  return suspects;
}

std::vector<Suspect> straggler_suspects(const Judging& judging) {
  const auto& arrivals = judging.measurements.arrivals;
  if (arrivals.empty()) return {};
  const Thresholds& thresholds = judging.thresholds;
  auto reading_of = [&](const ArrivalFigures& arrival) {
    return Reading{arrival.mean_lateness_us, thresholds.lateness_limit_us(arrival.op_time_us)};
  };
  // A rank is a straggler when it is late and the other ranks, by their median, are not: when
  // they are late too, everyone is (host noise), not one rank. Against the others rather than
  // all, so that with 2 ranks the late one is not its own alibi.
  auto others_late = [&](const ArrivalFigures& late) {
    std::vector<double> ratios;
    for (const ArrivalFigures& arrival : arrivals) {
      if (arrival.rank != late.rank) ratios.push_back(reading_of(arrival).ratio());
    }
    return !ratios.empty() && stats::median(ratios) > 1;
  };
  // A rank measured in several groups is judged by its latest arrival.
  std::vector<Suspect> suspects;
  for (const ArrivalFigures& arrival : arrivals) {
    const Reading reading = reading_of(arrival);
    if (reading.ratio() <= 1 || others_late(arrival)) continue;
    const auto known = std::find_if(suspects.begin(), suspects.end(), [&](const Suspect& suspect) {
      return suspect.rank == arrival.rank;
    });
    Suspect suspect = rank_suspect(judging, SuspectKind::straggler, arrival.rank, reading);
    suspect.evidence.push_back(
        fmt::format("launched {:.0f} us late on average against a limit of {:.0f} us ({})",
                    reading.figure, reading.expectation, ratio_text(reading.ratio())));
    if (known == suspects.end()) {
      suspects.push_back(std::move(suspect));
    } else if (reading.ratio() > known->ratio) {
      *known = std::move(suspect);
    }
  }
  return suspects;
}

}  // namespace collbench::diagnose
