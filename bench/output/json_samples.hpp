// collbench --json: every case with its samples, for every rank, as JSON Lines. The first line
// describes the run (metadata, settings); each measured case follows as soon as it is measured
// (flushed, so an interrupted run keeps what it measured): its report row (the CSV's columns by
// name), the samples of the slowest rank and each rank's own. `jq -s` reads the file as an array;
// `collreport ranks` reads it.
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "output/case_sinks.hpp"

namespace collbench {

class JsonSamplesSink final : public CaseSink {
 public:
  // Opens (truncates) `path` and writes the run line; throws std::runtime_error naming the path.
  JsonSamplesSink(const std::string& path, const RunMetadata& metadata,
                  const MeasureSettings& settings, const nlohmann::json& sweep);
  void on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) override;

 private:
  void write_line(const nlohmann::json& line);
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  RunMetadata metadata_;
  MeasureSettings settings_;
};

}  // namespace collbench
