// collbench_linkpeak in the shared frame: the topology, then every method and direction measured
// on GPUs 0..N-1 (a matrix or a ring per pair), CSV rows as they come, and the per-GPU link peak.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frame/program.hpp"
#include "link_peak_options.hpp"
#include "link_peak_probe.hpp"
#include "reports/csv_writer.hpp"
#include "reports/report_row.hpp"

namespace collbench::link_peak {

class LinkPeakProgram final : public Program {
 public:
  std::string_view name() const override { return "collbench_linkpeak"; }
  std::string help() const override { return link_peak_help(); }
  void parse(const std::vector<std::string>& args) override {
    options_ = parse_link_peak_options(args);
  }
  const CommonSettings& common() const override { return options_.common; }
  void start(RunContext& run) override;
  void run_plan(RunContext& run) override;
  int finish(RunContext& run) override;
  // Copies between this process's own GPUs: no other process waits on them.
  void abort() noexcept override {}

 private:
  // Measures every transfer group of one method and direction, then prints its matrix or ring.
  void measure(CopyMethod method, Direction direction, const RunMetadata& metadata);

  LinkPeakOptions options_;
  int gpu_count_ = 0;
  std::unique_ptr<LinkPeakProbe> probe_;
  std::unique_ptr<report::CsvWriter> csv_;
  std::vector<report::ReportRow> rows_;
};

}  // namespace collbench::link_peak
