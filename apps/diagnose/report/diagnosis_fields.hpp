// Every structure of the diagnosis document as one list of (JSON name, member), which the writer
// and the reader both walk: a field is added in one place and cannot be written but not read.
// Internal to diagnosis_json*.cpp.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "verdict/figures.hpp"
#include "verdict/verdict.hpp"

namespace collbench::diagnose {

template <typename Visit>
void visit_fields(RankIdentity& identity, Visit&& field) {
  field("rank", identity.rank);
  field("host", identity.host);
  field("local_gpu", identity.local_gpu);
  field("pci_bus_id", identity.pci_bus_id);
}

template <typename Visit>
void visit_fields(GpuFigures& gpu, Visit&& field) {
  field("rank", gpu.rank);
  field("copy_gbps", gpu.copy_gbps);
  field("copy_spread", gpu.copy_spread);
  field("compute_tflops", gpu.compute_tflops);
  field("compute_spread", gpu.compute_spread);
  field("other_processes", gpu.other_processes);
  field("sm_clock_mhz", gpu.sm_clock_mhz);
  field("max_sm_clock_mhz", gpu.max_sm_clock_mhz);
  field("power_w", gpu.power_w);
  field("clock_event_reasons", gpu.clock_event_reasons);
  field("ecc_uncorrected", gpu.ecc_uncorrected);
  field("ecc_corrected", gpu.ecc_corrected);
  field("nvlink_replay", gpu.nvlink_replay);
  field("nvlink_recovery", gpu.nvlink_recovery);
  field("nvlink_crc", gpu.nvlink_crc);
}

template <typename Visit>
void visit_fields(PairFigures& pair, Visit&& field) {
  field("src", pair.src);
  field("dst", pair.dst);
  field("bandwidth_gbps", pair.bandwidth_gbps);
  field("latency_us", pair.latency_us);
  field("bandwidth_spread", pair.bandwidth_spread);
  field("latency_spread", pair.latency_spread);
}

template <typename Visit>
void visit_fields(GroupFigures& group, Visit&& field) {
  field("ranks", group.ranks);
  field("op", group.op);
  field("busbw_gbps", group.busbw_gbps);
  field("time_us", group.time_us);
  field("expected_busbw_gbps", group.expected_busbw_gbps);
}

template <typename Visit>
void visit_fields(ArrivalFigures& arrival, Visit&& field) {
  field("rank", arrival.rank);
  field("gpu_lateness_us", arrival.gpu_lateness_us);
  field("gpu_lateness_spread_us", arrival.gpu_lateness_spread_us);
  field("waited_us", arrival.waited_us);
  field("host_known", arrival.host_known);
  field("host_lateness_us", arrival.host_lateness_us);
  field("host_lateness_spread_us", arrival.host_lateness_spread_us);
  field("op_time_us", arrival.op_time_us);
  field("gpu_lateness_samples_us", arrival.gpu_lateness_samples_us);
  field("host_lateness_samples_us", arrival.host_lateness_samples_us);
}

template <typename Visit>
void visit_fields(MissingRank& missing, Visit&& field) {
  field("rank", missing.rank);
  field("what", missing.what);
}

template <typename Visit>
void visit_fields(Rechecks& rechecks, Visit&& field) {
  field("gpus", rechecks.gpus);
  field("pairs", rechecks.pairs);
  field("arrivals", rechecks.arrivals);
}

template <typename Visit>
void visit_fields(Reference& reference, Visit&& field) {
  field("median", reference.median);
  field("log_spread", reference.log_spread);
  field("figures", reference.figures);
}

template <typename Visit>
void visit_fields(PairExpectation& pairs, Visit&& field) {
  field("bandwidth_gbps", pairs.bandwidth_gbps);
  field("latency_us", pairs.latency_us);
}

template <typename Visit>
void visit_fields(Expectations& expectations, Visit&& field) {
  field("copy_gbps", expectations.copy_gbps);
  field("compute_tflops", expectations.compute_tflops);
  field("within_host", expectations.within_host);
  field("across_hosts", expectations.across_hosts);
  field("link_peak_gbps", expectations.link_peak_gbps);
}

template <typename Visit>
void visit_fields(Thresholds& thresholds, Visit&& field) {
  for (const ThresholdSetting& setting : threshold_settings()) {
    field(setting.name, thresholds.*(setting.value));
  }
}

template <typename Visit>
void visit_fields(Suspect& suspect, Visit&& field) {
  field("kind", suspect.kind);
  field("rank", suspect.rank);
  field("peer", suspect.peer);
  field("ranks", suspect.ranks);
  field("direction", suspect.direction);
  field("host", suspect.host);
  field("pci_bus_id", suspect.pci_bus_id);
  field("figure", suspect.figure);
  field("reference", suspect.reference);
  field("ratio", suspect.ratio);
  field("spreads", suspect.spreads);
  field("confirmed", suspect.confirmed);
  field("evidence", suspect.evidence);
}

template <typename Visit>
void visit_fields(ClearedFigure& cleared, Visit&& field) {
  field("figure_kind", cleared.figure_kind);
  field("ranks", cleared.ranks);
  field("figure", cleared.figure);
  field("reference", cleared.reference);
  field("spreads", cleared.spreads);
  field("recheck", cleared.recheck);
  field("line", cleared.line);
}

template <typename Visit>
void visit_fields(Margin& margin, Visit&& field) {
  field("worst", margin.worst);
  field("figure", margin.figure);
  field("reference", margin.reference);
  field("ratio", margin.ratio);
  field("spreads", margin.spreads);
}

template <typename Visit>
void visit_fields(Margins& margins, Visit&& field) {
  field("copy", margins.copy);
  field("compute", margins.compute);
  field("pair_bandwidth", margins.pair_bandwidth);
  field("pair_latency", margins.pair_latency);
  field("collective", margins.collective);
  field("arrival", margins.arrival);
}

// Whether T is one of the structures above (a JSON object) rather than a plain value.
struct IgnoreField {
  template <typename Value>
  void operator()(const char*, Value&) const {}
};
template <typename T, typename = void>
struct HasFields : std::false_type {};
template <typename T>
struct HasFields<T, decltype(visit_fields(std::declval<T&>(), IgnoreField{}))> : std::true_type {};

// Whether T is a list of such structures (a JSON array of objects).
template <typename T>
struct IsStructureList : std::false_type {};
template <typename T>
struct IsStructureList<std::vector<T>> : HasFields<T> {};

// Whether T is such a structure that may be absent (an object or null).
template <typename T>
struct IsOptionalStructure : std::false_type {};
template <typename T>
struct IsOptionalStructure<std::optional<T>> : HasFields<T> {};

}  // namespace collbench::diagnose
