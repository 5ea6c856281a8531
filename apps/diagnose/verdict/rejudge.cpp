// Re-judging a saved diagnosis.
#include "verdict/rejudge.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "report/console_summary.hpp"
#include "report/diagnosis_json.hpp"
#include "telemetry/link_peak_table.hpp"

namespace collbench::diagnose {

int rejudge(const std::string& path, const DiagnoseOptions& options) {
  // A bad --link-peak file is its own error (UsageError, one line naming it), not the saved file's.
  const double link_peak_gbps =
      options.link_peak_path.empty() ? 0 : read_link_peak_gbps(options.link_peak_path);
  nlohmann::json document;
  try {
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot be opened");
    document = nlohmann::json::parse(file);
    Diagnosis saved = read_diagnosis_json(document);
    // A link peak given now replaces the saved one (or none): a run made without --link-peak
    // can be judged against a healthy machine's peak afterwards.
    if (link_peak_gbps > 0) saved.measurements.link_peak_gbps = link_peak_gbps;
    const Verdict verdict = judge(saved.measurements, options.thresholds);
    fmt::print("# collbench_diagnose --from {}: {} ranks judged again\n{}", path,
               saved.measurements.ranks.size(), console_summary(saved.measurements, verdict));
    if (!options.json_path.empty()) {
      nlohmann::json out =
          diagnosis_json(saved.measurements, verdict, saved.injected, saved.wall_s);
      if (document.contains("truth")) out["truth"] = document["truth"];
      std::ofstream written(options.json_path);
      written << out.dump(2) << "\n";
      if (!written)
        throw std::runtime_error(fmt::format("--json '{}' cannot be written", options.json_path));
    }
    return verdict.exit_status();
  } catch (const std::exception& error) {
    fmt::print(stderr, "collbench_diagnose: error: --from '{}': {}\n", path, error.what());
    return 2;
  }
}

}  // namespace collbench::diagnose
