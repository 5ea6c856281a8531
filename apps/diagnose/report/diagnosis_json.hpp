// The diagnosis as one JSON document (collbench_diagnose --json), and its reader, which checks
// every field so that collreport and the tests can trust what they read:
//   {"format": "collbench-diagnosis", "version": 2, "injected": "" (the test-only fault, if any),
//    "ranks": [{rank, host, local_gpu, pci_bus_id}],
//    "gpus": [{rank, copy_gbps, copy_spread, compute_tflops, compute_spread, other_processes,
//              sm_clock_mhz, max_sm_clock_mhz, power_w, clock_event_reasons, ecc_uncorrected,
//              ecc_corrected, nvlink_replay, nvlink_recovery, nvlink_crc}],
//    "pairs": [{src, dst, bandwidth_gbps, latency_us, bandwidth_spread, latency_spread}],
//    "groups": [{ranks, op, busbw_gbps, time_us, expected_busbw_gbps}],
//    "arrivals": [{rank, gpu_lateness_us, gpu_lateness_spread_us, waited_us, host_known,
//                  host_lateness_us, host_lateness_spread_us, op_time_us,
//                  gpu_lateness_samples_us: [us], host_lateness_samples_us: [us]}]
//                  (the samples may be absent in files saved before they were kept),
//    "missing": [{rank, what}],
//    "rechecks": {gpus: [as gpus], pairs: [as pairs], arrivals: [as arrivals]},
//    "expectations": {copy_gbps: REF, compute_tflops: REF,
//                     within_host: {bandwidth_gbps: REF, latency_us: REF},
//                     across_hosts: {...}, link_peak_gbps}, REF = {median, log_spread, figures},
//    "thresholds": {spread_factor, bandwidth_effect_ratio, latency_effect_ratio,
//                   copy_spread_floor, compute_spread_floor, bandwidth_spread_floor,
//                   latency_spread_floor, slow_ratio, arrival_floor_us, arrival_op_share,
//                   arrival_host_share},
//    "suspects": [{kind, rank, peer, ranks, direction, host, pci_bus_id, figure, reference, ratio,
//                  spreads, confirmed, evidence: [lines]}],
//    "cleared": [{figure_kind, ranks, figure, reference, spreads, recheck, line}],
//    "margins": {copy, compute, pair_bandwidth, pair_latency, collective, arrival: each
//                {worst, figure, reference, ratio, spreads} or null}, "wall_s": seconds}
// A reading NVML did not give, a margin with nothing measured, the spreads of a collective's
// margin and a peer that is not one pair's are null; every field is always present. A top-level
// "truth" object (what a test harness did to the machine) is accepted and left alone.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "verdict/figures.hpp"
#include "verdict/verdict.hpp"

namespace collbench::diagnose {

inline constexpr const char* kDiagnosisFormat = "collbench-diagnosis";
inline constexpr int kDiagnosisFormatVersion = 2;

// `injected`: the test-only fault the run was given ("" for a real diagnosis).
nlohmann::json diagnosis_json(const Measurements& measurements, const Verdict& verdict,
                              const std::string& injected, double wall_s);

// What a diagnosis document holds, read back.
struct Diagnosis {
  std::string injected;
  Measurements measurements;
  Verdict verdict;
  double wall_s = 0;
};

// One line naming the field at fault: "no 'suspects' field", "'suspects[0].ratio' is \"x\", not
// a number".
class DiagnosisFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a diagnosis document; throws DiagnosisFormatError on any missing field, wrong type,
// unknown suspect kind, a "truth" that is not an object, or another format or version.
Diagnosis read_diagnosis_json(const nlohmann::json& document);
// The same check, for callers that only need to know the document is sound.
void validate_diagnosis_json(const nlohmann::json& document);

}  // namespace collbench::diagnose
