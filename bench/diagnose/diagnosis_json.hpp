// The diagnosis as one JSON document (collbench_diagnose --json), and its reader, which checks
// every field so that collreport and the tests can trust what they read:
//   {"format": "collbench-diagnosis", "version": 1, "injected": "" (the test-only fault, if any),
//    "ranks": [{rank, host, local_gpu, pci_bus_id}],
//    "gpus": [{rank, copy_gbps, sm_clock_mhz, max_sm_clock_mhz, power_w, clock_event_reasons,
//              ecc_uncorrected, ecc_corrected, nvlink_replay, nvlink_recovery, nvlink_crc}],
//    "pairs": [{src, dst, bandwidth_gbps, latency_us}],
//    "groups": [{ranks, op, busbw_gbps, time_us, expected_busbw_gbps}],
//    "arrivals": [{rank, mean_lateness_us, op_time_us}], "missing": [{rank, what}],
//    "expectations": {copy_gbps, within_host: {bandwidth_gbps, latency_us}, across_hosts: {...},
//                     link_peak_gbps},
//    "thresholds": {slow_ratio, latency_ratio, straggler_min_us, straggler_op_share},
//    "suspects": [{kind, rank, peer, ranks, host, pci_bus_id, figure, expectation, ratio,
//                  evidence: [lines]}],
//    "margins": {copy, pair_bandwidth, pair_latency, collective, lateness}, "wall_s": seconds}
// A reading NVML did not give, a margin with nothing measured, and a peer that is not one pair's
// are null; every field is always present.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "figures.hpp"
#include "verdict.hpp"

namespace collbench::diagnose {

inline constexpr const char* kDiagnosisFormat = "collbench-diagnosis";
inline constexpr int kDiagnosisFormatVersion = 1;

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
// unknown suspect kind, or another format or version.
Diagnosis read_diagnosis_json(const nlohmann::json& document);
// The same check, for callers that only need to know the document is sound.
void validate_diagnosis_json(const nlohmann::json& document);

}  // namespace collbench::diagnose
