// The link-peak measurement, method by method and direction by direction.
#include "link_peak_program.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

#include "core/byte_size.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "link_peak_report.hpp"
#include "telemetry/topology.hpp"

namespace collbench::link_peak {
namespace {

const char* direction_title(Direction direction) {
  switch (direction) {
    case Direction::uni:
      return "one direction, one pair at a time";
    case Direction::bi:
      return "both directions at once, per direction";
    default:
      return "all GPUs at once, GPU i -> GPU i+1, per direction";
  }
}

}  // namespace

void LinkPeakProgram::start(RunContext&) {
  const Topology topology = probe_topology();
  const int visible = static_cast<int>(topology.gpus.size());
  fmt::print("{}\n", format_topology(topology));
  const int asked = options_.common.gpu_count;
  gpu_count_ = asked > 0 ? asked : visible;
  if (gpu_count_ > visible) {
    throw UsageError(fmt::format("--gpus {} but only {} GPU(s) visible", asked, visible));
  }
  if (gpu_count_ < 2)
    throw std::runtime_error(fmt::format("needs at least 2 GPUs, {} visible", gpu_count_));
  if (!options_.common.csv_path.empty())
    csv_ = std::make_unique<report::CsvWriter>(options_.common.csv_path);
  probe_ = std::make_unique<LinkPeakProbe>(gpu_count_, options_.bytes);
}

void LinkPeakProgram::run_plan(RunContext& run) {
  for (CopyMethod method : options_.methods) {
    for (Direction direction : options_.directions) measure(method, direction, run.metadata);
  }
}

void LinkPeakProgram::measure(CopyMethod method, Direction direction, const RunMetadata& metadata) {
  const ProbeSettings settings{options_.bytes, options_.warmup, options_.iters};
  for (const std::vector<Transfer>& group : transfer_groups(direction, gpu_count_)) {
    throw_if_interrupted();  // a group takes a fraction of a second: a signal ends the run between
                             // them
    for (const TransferResult& result :
         probe_->measure(method, group, options_.warmup, options_.iters)) {
      rows_.push_back(
          make_row(metadata, settings, method, direction, gpus_in_group(group), result));
      const report::ReportRow& row = rows_.back();
      if (csv_) csv_->write(row);
      if (row.status != report::kStatusOk) {
        fmt::print(stderr, "collbench_linkpeak: {} {}: {} ({})\n", row.algo, row.config, row.status,
                   row.reason);
      }
    }
  }
  fmt::print("{} GB/s, {} ({}):\n", method_name(method), direction_title(direction),
             format_byte_size(options_.bytes));
  if (direction == Direction::all) {
    fmt::print("  {}\n\n", format_ring(rows_, method_name(method)));
  } else {
    fmt::print("{}\n", format_bandwidth_matrix(rows_, method_name(method),
                                               direction_name(direction), gpu_count_));
  }
  std::fflush(stdout);
}

int LinkPeakProgram::finish(RunContext&) {
  fmt::print("{}\n", link_peak_summary(rows_));
  for (const report::ReportRow& row : rows_) {
    if (row.status == report::kStatusError) return kExitFailed;
  }
  return kExitOk;
}

}  // namespace collbench::link_peak
