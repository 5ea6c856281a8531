// The rules about one rank: missing ranks, slow GPUs (by their own figures only: the compute, the
// copy, the counters, a late arrival on the GPU while the host was on time), starved hosts,
// stragglers, and a host whose GPUs are all slow. A copy slowed by the links' traffic through the
// GPU's memory, its compute normal, is no figure of the GPU's own (copies_beside_slow_pairs, and
// judge() for which of those copies its links take).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "verdict/verdict_rules.hpp"

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

const ArrivalJudging* arrival_of(const Judging& judging, int rank) {
  for (const ArrivalJudging& arrival : judging.arrivals) {
    if (arrival.rank == rank) return &arrival;
  }
  return nullptr;
}

// A late arrival as a suspect's figure: its lateness against its limit, the spreads past it.
Deviation lateness_deviation(const ArrivalJudging& arrival) {
  const Lateness lateness =
      lateness_of(arrival.recheck ? *arrival.recheck : *arrival.arrival, arrival.first);
  Deviation deviation;
  deviation.figure = lateness.figure_us;
  deviation.reference = lateness.limit_us;
  deviation.spreads = arrival.first.margin_spreads;
  deviation.flagged = true;
  return deviation;
}

std::string arrival_evidence(const ArrivalJudging& arrival) {
  const ArrivalFigures& figures = *arrival.arrival;
  const Lateness lateness = lateness_of(figures, arrival.first);
  const std::string recheck =
      arrival.recheck
          ? fmt::format("recheck {:.0f} us", lateness_of(*arrival.recheck, arrival.first).figure_us)
          : "unconfirmed, no recheck";
  const std::string limit =
      fmt::format("against a limit of {:.0f} us ({} past it; {})", lateness.limit_us,
                  spreads_text(arrival.first.margin_spreads), recheck);
  switch (arrival.first.cause) {
    case stats::LateCause::gpu:
      return fmt::format(
          "arrived {:.0f} us late on the GPU while its host launched on time "
          "({:.0f} us) {}",
          figures.gpu_lateness_us, figures.host_lateness_us, limit);
    case stats::LateCause::host:
      return fmt::format("its host launched {:.0f} us late (the GPU arrived {:.0f} us late) {}",
                         figures.host_lateness_us, figures.gpu_lateness_us, limit);
    default:
      return fmt::format(
          "arrived {:.0f} us late on the GPU {}; no other rank on its host to tell "
          "host from GPU",
          figures.gpu_lateness_us, limit);
  }
}

// The rank's late arrival, when it is a suspect, made into `kind`'s evidence.
void add_arrival(const ArrivalJudging* arrival, Suspect& suspect) {
  if (!arrival || !arrival->suspect()) return;
  weigh(suspect, lateness_deviation(*arrival));
  suspect.evidence.push_back(arrival_evidence(*arrival));
  if (!arrival->recheck) suspect.confirmed = false;
}

void add_figure(const JudgedFigure& figure, std::string line, Suspect& suspect) {
  weigh(suspect, figure.latest());
  suspect.evidence.push_back(std::move(line));
  note_confirmation(suspect, figure);
}

// `copy_counts` false: the copy is the links' traffic, not the GPU's.
std::optional<Suspect> judge_gpu(const Judging& judging, const GpuJudgement& judged,
                                 bool copy_counts) {
  const GpuFigures& gpu = *judged.gpu;
  Suspect suspect = rank_suspect(judging, SuspectKind::slow_gpu, gpu.rank, {});
  if (copy_counts && judged.copy.suspect()) {
    add_figure(judged.copy, copy_evidence(judged.copy), suspect);
  }
  // Time slices of another process's kernels, a braked clock: the SMs themselves are short.
  if (judged.compute.suspect()) {
    add_figure(judged.compute, compute_evidence(judged.compute), suspect);
  }
  if (gpu.ecc_uncorrected.value_or(0) > 0) {
    suspect.evidence.push_back(fmt::format("{} uncorrected ECC errors", *gpu.ecc_uncorrected));
  }
  if (std::optional<std::string> brake = brake_evidence(judging, gpu)) {
    suspect.evidence.push_back(*brake);
  }
  const ArrivalJudging* arrival = arrival_of(judging, gpu.rank);
  if (arrival && arrival->first.cause == stats::LateCause::gpu) add_arrival(arrival, suspect);
  if (suspect.evidence.empty()) return std::nullopt;
  // Another process's work is what makes a GPU slow in a job too; alone it condemns nothing.
  if (gpu.other_processes.value_or(0) > 0) {
    suspect.evidence.push_back(fmt::format("{} other process{} on this GPU", *gpu.other_processes,
                                           *gpu.other_processes == 1 ? "" : "es"));
  }
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

std::vector<int> copies_beside_slow_pairs(const Judging& judging) {
  std::vector<int> ranks;
  for (const GpuJudgement& gpu : judging.gpus) {
    const int rank = gpu.gpu->rank;
    const bool slow_pair = std::any_of(
        judging.pairs.begin(), judging.pairs.end(),
        [&](const PairJudgement& pair) { return pair.involves(rank) && pair.bandwidth.suspect(); });
    if (gpu.copy.suspect() && gpu.compute_normal() && slow_pair) ranks.push_back(rank);
  }
  return ranks;
}

std::vector<Suspect> rank_suspects(const Judging& judging, const std::vector<int>& loaded) {
  std::vector<Suspect> suspects;
  for (const GpuJudgement& gpu : judging.gpus) {
    const bool copy_counts = std::find(loaded.begin(), loaded.end(), gpu.gpu->rank) == loaded.end();
    if (std::optional<Suspect> suspect = judge_gpu(judging, gpu, copy_counts)) {
      suspects.push_back(std::move(*suspect));
    }
  }
  for (const ArrivalJudging& arrival : judging.arrivals) {
    if (!arrival.suspect() || arrival.first.cause == stats::LateCause::gpu) continue;
    const SuspectKind kind = arrival.first.cause == stats::LateCause::host
                                 ? SuspectKind::starved_host
                                 : SuspectKind::straggler;
    Suspect suspect = rank_suspect(judging, kind, arrival.rank, {});
    add_arrival(&arrival, suspect);
    suspects.push_back(std::move(suspect));
  }
  // A rank late on its GPU with no GPU figures at all is still a slow GPU.
  for (const ArrivalJudging& arrival : judging.arrivals) {
    if (!arrival.suspect() || arrival.first.cause != stats::LateCause::gpu ||
        gpu_judgement(judging, arrival.rank)) {
      continue;
    }
    Suspect suspect = rank_suspect(judging, SuspectKind::slow_gpu, arrival.rank, {});
    add_arrival(&arrival, suspect);
    suspects.push_back(std::move(suspect));
  }
  return suspects;
}

}  // namespace collbench::diagnose
