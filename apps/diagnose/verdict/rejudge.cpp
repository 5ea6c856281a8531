// Re-judging a saved diagnosis.
#include "verdict/rejudge.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "report/console_summary.hpp"
#include "report/diagnosis_json.hpp"

namespace collbench::diagnose {

int rejudge(const std::string& path, const DiagnoseOptions& options) {
  nlohmann::json document;
  try {
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot be opened");
    document = nlohmann::json::parse(file);
    const Diagnosis saved = read_diagnosis_json(document);
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
