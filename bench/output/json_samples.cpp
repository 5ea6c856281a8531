// The JSON Lines sample file.
#include "output/json_samples.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "reports/json_row.hpp"
#include "reports/sample_file.hpp"  // the format name and version, shared with the reader

namespace collbench {
namespace {

using nlohmann::json;

const char* timing_name(const MeasureSettings& settings) {
  if (settings.graph_replays > 0) return "graph_replay";
  return times_whole_loop(settings) ? "loop" : "each";
}

json settings_json(const MeasureSettings& settings) {
  return {{"warmup", settings.warmup_iters},        {"iters", settings.iters},
          {"agg_iters", settings.agg_iters},        {"graph", settings.graph_replays},
          {"timing", timing_name(settings)},        {"max_noise_pct", settings.stop.max_noise_pct},
          {"min_iters", settings.stop.min_samples}, {"min_time_s", settings.stop.min_time_s},
          {"max_time_s", settings.stop.max_time_s}, {"confidence_pct", settings.confidence * 100},
          {"check_iters", settings.check_iters},    {"seed", settings.seed},
          {"timeout_s", settings.timeout_s}};
}

// Samples to the nanosecond: finer digits are below the events' resolution and only grow the file.
json rounded(const std::vector<double>& samples_us) {
  json values = json::array();
  for (double us : samples_us) values.push_back(std::round(us * 1000) / 1000);
  return values;
}

json by_rank(const std::vector<std::vector<double>>& per_rank_us) {
  json ranks = json::array();
  for (const std::vector<double>& values : per_rank_us) ranks.push_back(rounded(values));
  return ranks;
}

json metadata_json(const RunMetadata& metadata) {
  json gpus = json::array();
  for (const GpuInfo& gpu : metadata.topology.gpus) {
    gpus.push_back({{"index", gpu.index}, {"name", gpu.name}, {"pci_bus_id", gpu.pci_bus_id}});
  }
  json object = report::origin_to_json(metadata);
  object["gpus"] = gpus;
  return object;
}

}  // namespace

JsonSamplesSink::JsonSamplesSink(const std::string& path, const RunMetadata& metadata,
                                 const MeasureSettings& settings, const json& sweep)
    : path_(path), file_(std::fopen(path.c_str(), "w")), metadata_(metadata), settings_(settings) {
  if (!file_)
    throw std::runtime_error(
        fmt::format("cannot open JSON file '{}': {}", path, std::strerror(errno)));
  write_line({{"type", "run"},
              {"format", report::kSamplesFormat},
              {"version", report::kSamplesFormatVersion},
              {"started", utc_timestamp()},
              {"metadata", metadata_json(metadata)},
              {"settings", settings_json(settings)},
              {"sweep", sweep}});
}

void JsonSamplesSink::on_case(const Case& c, const CaseOutcome& outcome,
                              const CaseMetrics& metrics) {
  json line = {
      {"type", "case"},
      {"name", benchmark_name(c)},
      {"row", report::row_to_json(make_report_row(metadata_, settings_, c, outcome, metrics))},
      {"ops_per_sample", outcome.ops_per_sample},
      {"samples_us", rounded(outcome.iteration_us)}};
  // Each rank's own per-operation samples and its lateness per sample (index = rank), beside the
  // slowest-rank samples above.
  line["rank_samples_us"] = by_rank(outcome.rank_samples_us);
  line["rank_lateness_us"] = by_rank(outcome.rank_lateness_us);
  // Which host each rank ran on, so that launches are compared on one clock; absent until the
  // runner knows (readers then take one host).
  if (!outcome.rank_hosts.empty()) line["rank_hosts"] = outcome.rank_hosts;
  // --split: each group's ranks, own samples (its slowest rank per sample) and figures.
  if (!metrics.groups.empty()) {
    const std::vector<std::vector<int>> groups = c.groups();
    json group_lines = json::array();
    for (std::size_t g = 0; g < metrics.groups.size() && g < groups.size(); ++g) {
      group_lines.push_back({{"ranks", groups[g]},
                             {"time_us_mean", metrics.groups[g].time_us_mean},
                             {"time_us_p50", metrics.groups[g].time_us_p50},
                             {"busbw_gbps", metrics.groups[g].busbw_gbps},
                             {"samples_us", rounded(outcome.group_samples_us[g])}});
    }
    line["split"] = {{"rule", c.communicator.split->text()},
                     {"group_ranks", c.group_ranks()},
                     {"groups", group_lines},
                     {"aggregate_busbw_gbps", metrics.aggregate_busbw_gbps}};
  }
  write_line(line);
}

void JsonSamplesSink::write_line(const json& line) {
  const std::string text = line.dump() + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_.get()) != text.size() ||
      std::fflush(file_.get()) != 0) {
    throw std::runtime_error(
        fmt::format("cannot write JSON file '{}': {}", path_, std::strerror(errno)));
  }
}

}  // namespace collbench
