// Sample file lines for the tests.
#include "support/sample_text.hpp"

#include <algorithm>

#include "reports/json_row.hpp"
#include "reports/sample_file.hpp"

namespace collbench::fixtures {

using nlohmann::json;

json sample_run_line() {
  json gpus = json::array();
  for (int index = 0; index < 4; ++index) {
    gpus.push_back({{"index", index},
                    {"name", "NVIDIA H200"},
                    {"pci_bus_id", "0000:1" + std::to_string(index) + ":00.0"}});
  }
  return {{"type", "run"},
          {"format", report::kSamplesFormat},
          {"version", report::kSamplesFormatVersion},
          {"started", "2026-11-22T10:00:00Z"},
          {"metadata",
           {{"host", "fixture-host"},
            {"gpu_name", "NVIDIA H200"},
            {"driver", "580.159.04"},
            {"cuda_runtime", "13.0"},
            {"nccl_version", "2.28.3"},
            {"collbench_version", "0.1.0-fixture"},
            {"launch_mode", "single_process"},
            {"nodes", 1},
            {"gpus", gpus}}},
          {"settings", {{"warmup", 5}, {"iters", 20}}},
          {"sweep", {{"ops", {"all_reduce"}}}}};
}

json sample_case_line(report::ReportRow row,
                      const std::vector<std::vector<double>>& rank_samples_us) {
  std::vector<double> slowest =
      rank_samples_us.empty() ? std::vector<double>{} : rank_samples_us.front();
  for (const std::vector<double>& samples : rank_samples_us) {
    for (std::size_t s = 0; s < samples.size() && s < slowest.size(); ++s) {
      slowest[s] = std::max(slowest[s], samples[s]);
    }
  }
  row.time.samples = static_cast<int>(slowest.size());
  return {{"type", "case"},
          {"name", row.op + "/" + row.algo + "/" + std::to_string(row.ranks) + "/" +
                       std::to_string(row.bytes)},
          {"row", report::row_to_json(row)},
          {"ops_per_sample", 1},
          {"samples_us", slowest},
          {"rank_samples_us", rank_samples_us}};
}

std::string sample_file_text(const std::vector<json>& lines) {
  std::string text;
  for (const json& line : lines) text += line.dump() + "\n";
  return text;
}

}  // namespace collbench::fixtures
