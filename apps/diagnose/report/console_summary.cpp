// The console summary: sections of plain text, the verdict last so it is what stays on screen.
#include "report/console_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "report/figure_text.hpp"

namespace collbench::diagnose {
namespace {

template <typename T>
std::string or_dash(const std::optional<T>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "-";
}

// A figure and its spread, or dashes where it was not measured.
std::string figure_cells(double figure, double spread, const char* format) {
  if (figure <= 0) return fmt::format("{:>9} {:>7}", "-", "-");
  return fmt::format("{:>9} {:>6.1f}%", fmt::format(fmt::runtime(format), figure), 100 * spread);
}

std::string gpu_table(const Measurements& measurements) {
  std::string text =
      fmt::format("GPUs\n  {:>4}  {:<16} {:<14} {:>9} {:>7}  {:>9} {:>7}  {:>11}  {:<12}  {}\n",
                  "rank", "host", "GPU", "copy GB/s", "spread", "TFLOP/s", "spread", "SM MHz",
                  "clock events", "other processes");
  for (const GpuFigures& gpu : measurements.gpus) {
    const RankIdentity* identity = identity_of(measurements, gpu.rank);
    const std::string clock =
        or_dash(gpu.sm_clock_mhz, "{:.0f}") + "/" + or_dash(gpu.max_sm_clock_mhz, "{:.0f}");
    text +=
        fmt::format("  {:>4}  {:<16} {:<14} {}  {}  {:>11}  {:<12}  {}\n", gpu.rank,
                    identity ? identity->host : "?", identity ? identity->pci_bus_id : "?",
                    figure_cells(gpu.copy_gbps, gpu.copy_spread, "{:.0f}"),
                    figure_cells(gpu.compute_tflops, gpu.compute_spread, "{:.1f}"), clock,
                    or_dash(gpu.clock_event_reasons, "{:#x}"), or_dash(gpu.other_processes, "{}"));
  }
  return text;
}

// One figure of every pair: a row per sender, a column per receiver.
std::string pair_matrix(const Measurements& measurements, const std::string& title,
                        const std::function<std::string(const PairFigures&)>& cell) {
  int ranks = 0;
  for (const PairFigures& pair : measurements.pairs) {
    ranks = std::max({ranks, pair.src + 1, pair.dst + 1});
  }
  std::vector<std::vector<std::string>> cells(ranks, std::vector<std::string>(ranks, "?"));
  for (int rank = 0; rank < ranks; ++rank) cells[rank][rank] = "-";
  for (const PairFigures& pair : measurements.pairs) cells[pair.src][pair.dst] = cell(pair);
  std::string text = title + ", rows send to columns\n      ";
  for (int dst = 0; dst < ranks; ++dst) text += fmt::format("{:>6}", dst);
  text += "\n";
  for (int src = 0; src < ranks; ++src) {
    text += fmt::format("  {:>4}", src);
    for (int dst = 0; dst < ranks; ++dst) text += fmt::format("{:>6}", cells[src][dst]);
    text += "\n";
  }
  return text;
}

std::string pair_matrices(const Measurements& measurements) {
  return pair_matrix(
             measurements, "Pairs: send/recv GB/s",
             [](const PairFigures& pair) { return fmt::format("{:.0f}", pair.bandwidth_gbps); }) +
         "\n" +
         pair_matrix(
             measurements, "Pairs: latency us (half a round trip)",
             [](const PairFigures& pair) { return fmt::format("{:.1f}", pair.latency_us); });
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

// Late on the GPU against late on the host: which of the two the arrival rule blames.
std::string arrivals(const Measurements& measurements) {
  if (measurements.arrivals.empty()) return "";
  std::string text = fmt::format(
      "Arrivals: us late, over all_reduce launched at the same scheduled moments\n"
      "  {:>4}  {:>9}  {:>9}  {:>9}  {:>9}\n",
      "rank", "GPU late", "spread", "host late", "waited");
  for (const ArrivalFigures& arrival : measurements.arrivals) {
    text += fmt::format("  {:>4}  {:>9.1f}  {:>9.1f}  {:>9}  {:>9.1f}\n", arrival.rank,
                        arrival.gpu_lateness_us, arrival.gpu_lateness_spread_us,
                        arrival.host_known ? fmt::format("{:.1f}", arrival.host_lateness_us) : "-",
                        arrival.waited_us);
  }
  return text + "\n";
}

// "pair latency: worst 0->1 1.20× its reference, 1.8 spreads (flagged beyond 5 spreads and
// 1.50×)"
std::string margin_line(const char* what, const std::optional<Margin>& margin,
                        const char* reference, const std::string& limits) {
  if (!margin) return "";
  const std::string spreads = margin->spreads ? ", " + spreads_text(*margin->spreads) : "";
  return fmt::format("  {}: worst {} {} {}{} ({})\n", what, margin->worst,
                     ratio_text(margin->ratio), reference, spreads, limits);
}

// The arrival rule's spreads count from the limit itself: late beyond 0.
std::string arrival_margin_line(const std::optional<Margin>& margin) {
  if (!margin) return "";
  return fmt::format(
      "  arrival: worst {} {:.0f} us late, {} its limit of {:.0f} us, {} from it "
      "(late beyond it)\n",
      margin->worst, margin->figure, ratio_text(margin->ratio), margin->reference,
      spreads_text(margin->spreads.value_or(0)));
}

std::string margins_text(const Margins& margins, const Thresholds& thresholds) {
  const std::string beyond =
      fmt::format("flagged beyond {:g} spreads and ", thresholds.spread_factor);
  const std::string bandwidth = beyond + ratio_text(thresholds.bandwidth_effect_ratio);
  return margin_line("copy", margins.copy, "its reference", bandwidth) +
         margin_line("compute", margins.compute, "its reference", bandwidth) +
         margin_line("pair bandwidth", margins.pair_bandwidth, "its reference", bandwidth) +
         margin_line("pair latency", margins.pair_latency, "its reference",
                     beyond + ratio_text(thresholds.latency_effect_ratio)) +
         margin_line("collective", margins.collective, "its ring bound",
                     "slow below " + ratio_text(thresholds.slow_ratio)) +
         arrival_margin_line(margins.arrival);
}

std::string who(const Suspect& suspect) {
  if (suspect.direction == "send") return fmt::format("rank {} sending", suspect.rank);
  if (suspect.direction == "receive") return fmt::format("rank {} receiving", suspect.rank);
  if (suspect.direction == "both") return fmt::format("rank {} both ways", suspect.rank);
  if (!suspect.direction.empty()) return fmt::format("ranks {}", suspect.direction);
  if (suspect.peer) return fmt::format("ranks {} and {}", suspect.rank, *suspect.peer);
  if (suspect.ranks.size() > 1) return fmt::format("ranks {}", rank_list(suspect.ranks));
  return fmt::format("rank {}", suspect.rank);
}

std::string suspect_line(const Suspect& suspect) {
  std::string where = suspect.host;
  if (!suspect.pci_bus_id.empty()) where += " " + suspect.pci_bus_id;
  return fmt::format("  {:<13} {} ({}): {}\n", kind_name(suspect.kind), who(suspect), where,
                     fmt::join(suspect.evidence, "; "));
}

std::string cleared_text(const Verdict& verdict) {
  if (verdict.cleared.empty()) return "";
  std::string text = "Cleared on recheck (flagged once, fine when measured again alone):\n";
  for (const ClearedFigure& cleared : verdict.cleared) text += "  " + cleared.line + "\n";
  return text;
}

std::string verdict_text(const Verdict& verdict) {
  if (verdict.clean()) {
    return cleared_text(verdict) + "Verdict: no suspect; margins:\n" +
           margins_text(verdict.margins, verdict.thresholds);
  }
  std::string text = cleared_text(verdict) +
                     fmt::format("Verdict: {} suspect{}, the likeliest root cause first\n",
                                 verdict.suspects.size(), verdict.suspects.size() == 1 ? "" : "s");
  for (const Suspect& suspect : verdict.suspects) text += suspect_line(suspect);
  return text;
}

}  // namespace

std::string console_summary(const Measurements& measurements, const Verdict& verdict) {
  return gpu_table(measurements) + "\n" + pair_matrices(measurements) + "\n" +
         collectives(measurements) + "\n" + arrivals(measurements) + verdict_text(verdict);
}

}  // namespace collbench::diagnose
