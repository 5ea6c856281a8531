// The console summary: four sections of plain text, the verdict last so it is what stays on
// screen.
#include "console_summary.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "figure_text.hpp"

namespace collbench::diagnose {
namespace {

template <typename T>
std::string or_dash(const std::optional<T>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "-";
}

std::string gpu_table(const Measurements& measurements) {
  std::string text = fmt::format("GPUs\n  {:>4}  {:<16} {:<14} {:>9}  {:>11}  {}\n", "rank", "host",
                                 "GPU", "copy GB/s", "SM MHz", "clock events");
  for (const GpuFigures& gpu : measurements.gpus) {
    const RankIdentity* identity = identity_of(measurements, gpu.rank);
    const std::string clock =
        or_dash(gpu.sm_clock_mhz, "{:.0f}") + "/" + or_dash(gpu.max_sm_clock_mhz, "{:.0f}");
    text += fmt::format("  {:>4}  {:<16} {:<14} {:>9.0f}  {:>11}  {}\n", gpu.rank,
                        identity ? identity->host : "?", identity ? identity->pci_bus_id : "?",
                        gpu.copy_gbps, clock, or_dash(gpu.clock_event_reasons, "{:#x}"));
  }
  return text;
}

// Bandwidth of every pair: a row per sender, a column per receiver.
std::string pair_matrix(const Measurements& measurements) {
  int ranks = 0;
  for (const PairFigures& pair : measurements.pairs) {
    ranks = std::max({ranks, pair.src + 1, pair.dst + 1});
  }
  std::vector<std::vector<std::string>> cells(ranks, std::vector<std::string>(ranks, "?"));
  for (int rank = 0; rank < ranks; ++rank) cells[rank][rank] = "-";
  for (const PairFigures& pair : measurements.pairs) {
    cells[pair.src][pair.dst] = fmt::format("{:.0f}", pair.bandwidth_gbps);
  }
  std::string text = "Pairs: send/recv GB/s, rows send to columns\n      ";
  for (int dst = 0; dst < ranks; ++dst) text += fmt::format("{:>6}", dst);
  text += "\n";
  for (int src = 0; src < ranks; ++src) {
    text += fmt::format("  {:>4}", src);
    for (int dst = 0; dst < ranks; ++dst) text += fmt::format("{:>6}", cells[src][dst]);
    text += "\n";
  }
  return text;
}

std::string collectives(const Measurements& measurements) {
  std::string text = "Collectives\n";
  for (const GroupFigures& group : measurements.groups) {
    const double ratio =
        group.expected_busbw_gbps > 0 ? group.busbw_gbps / group.expected_busbw_gbps : 0;
    text +=
        fmt::format("  {:<15} ranks {:<24} busbw {:>6.0f} GB/s  expected {:>6.0f}  {}\n", group.op,
                    rank_list(group.ranks), group.busbw_gbps, group.expected_busbw_gbps,
                    group.expected_busbw_gbps > 0 ? ratio_text(ratio) : "-");
  }
  return text;
}

std::string margins_text(const Margins& margins, const Thresholds& thresholds) {
  std::vector<std::string> parts;
  const auto add = [&](const char* what, const std::optional<double>& ratio, std::string limit) {
    if (ratio) parts.push_back(fmt::format("{} {} ({})", what, ratio_text(*ratio), limit));
  };
  const std::string below = fmt::format("slow below {}", ratio_text(thresholds.slow_ratio));
  add("copy", margins.copy, below);
  add("pair bandwidth", margins.pair_bandwidth, below);
  add("pair latency", margins.pair_latency,
      fmt::format("slow above {}", ratio_text(thresholds.latency_ratio)));
  add("collective", margins.collective, below);
  add("lateness", margins.lateness, "of the limit");
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string suspect_line(const Suspect& suspect) {
  std::string who = suspect.peer ? fmt::format("ranks {} and {}", suspect.rank, *suspect.peer)
                    : suspect.ranks.size() > 1 ? fmt::format("ranks {}", rank_list(suspect.ranks))
                                               : fmt::format("rank {}", suspect.rank);
  std::string where = suspect.host;
  if (!suspect.pci_bus_id.empty()) where += " " + suspect.pci_bus_id;
  return fmt::format("  {:<12} {} ({}): {}\n", kind_name(suspect.kind), who, where,
                     fmt::join(suspect.evidence, "; "));
}

std::string verdict_text(const Verdict& verdict) {
  if (verdict.clean()) {
    return fmt::format("Verdict: no suspect (margins: {})\n",
                       margins_text(verdict.margins, verdict.thresholds));
  }
  std::string text = fmt::format("Verdict: {} suspect{}\n", verdict.suspects.size(),
                                 verdict.suspects.size() == 1 ? "" : "s");
  for (const Suspect& suspect : verdict.suspects) text += suspect_line(suspect);
  return text;
}

}  // namespace

std::string console_summary(const Measurements& measurements, const Verdict& verdict) {
  return gpu_table(measurements) + "\n" + pair_matrix(measurements) + "\n" +
         collectives(measurements) + "\n" + verdict_text(verdict);
}

}  // namespace collbench::diagnose
