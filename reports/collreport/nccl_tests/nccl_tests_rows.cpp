// nccl-tests' runs as report rows: one per data line and placement, checked against the schema.
#include "nccl_tests/nccl_tests_rows.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <set>
#include <stdexcept>
#include <utility>

#include "reports/nccl_tests_names.hpp"
#include "reports/printable.hpp"
#include "reports/schema.hpp"

namespace collbench::collreport {
namespace {

std::string join(const std::set<std::string>& values, const char* separator) {
  std::string text;
  for (const std::string& value : values) text += (text.empty() ? "" : separator) + value;
  return text;
}

// What nccl-tests' output says of the run but collbench's columns do not hold:
// "nccl_tests=2.19.6;threads=8;gpus_per_thread=1;processes=1;groups=1;validation=1".
std::string run_extra(const report::NcclTestsRun& run) {
  std::set<int> groups;
  for (const report::NcclTestsRankLine& rank : run.ranks) groups.insert(rank.group);
  const std::size_t processes =
      run.ranks.size() / static_cast<std::size_t>(run.threads * run.gpus_per_thread);
  std::string extra = fmt::format(
      "nccl_tests={};threads={};gpus_per_thread={};processes={};groups={};validation={}",
      run.version, run.threads, run.gpus_per_thread, processes, groups.size(), run.validation);
  if (run.cpu_time) extra += ";time=cputime";
  if (run.unalign > 0) extra += fmt::format(";unalign={}", run.unalign);
  return extra;
}

// The columns every row of `run` shares.
report::ReportRow run_row(const report::NcclTestsRun& run, const report::NcclTestsCollective& c) {
  std::set<std::string> hosts, gpus;
  for (const report::NcclTestsRankLine& rank : run.ranks) {
    hosts.insert(rank.host);
    gpus.insert(rank.gpu_name);
  }
  report::ReportRow row;
  row.origin.host = run.ranks.front().host;  // rank 0's, as collbench writes its own host
  row.origin.gpu_name = join(gpus, "/");
  row.origin.nccl_version = report::nccl_version_text(run.nccl_library);
  const bool one_process =
      run.ranks.size() == static_cast<std::size_t>(run.threads * run.gpus_per_thread);
  row.origin.launch_mode = one_process ? "single_process" : "mpi";
  row.origin.nodes = static_cast<int>(hosts.size());
  row.op = c.op;
  row.algo = kNcclTestsAlgo;
  row.ranks = static_cast<int>(run.ranks.size());
  row.warmup = run.warmup_iters;
  row.iters = run.iters;
  row.agg_iters = run.agg_iters;
  row.graph = run.graph;
  // A mean over fixed iterations: no per-iteration samples, no interval.
  row.time.samples = 0;
  row.stop = report::kStopFixed;
  row.time.confidence_pct = 0;
  row.extra = run_extra(run);
  return row;
}

void set_measurement(report::ReportRow& row, const report::NcclTestsPlacement& placement) {
  row.time.mean_us = placement.time_us;
  row.algbw_gbps = placement.algbw_gbps;
  row.busbw_gbps = placement.busbw_gbps;
  row.wrong_elements = placement.wrong_elements.value_or(0);
  if (placement.iterations) {
    row.time.min_us = placement.iterations->min_us;
    row.time.max_us = placement.iterations->max_us;
    row.time.p99_us = placement.iterations->p99_us;
    row.time.cv_pct = placement.iterations->cv_pct;
  }
}

// Lines left out of one run, by what they lack: how many and the first.
struct LeftOut {
  std::size_t lines = 0;
  unsigned first_line = 0;
};

}  // namespace

void check_config_text(const std::string& config, const std::string& what) {
  if (config.empty()) return;
  auto printable_ascii = [](char c) {
    const unsigned char byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x7f;
  };
  std::size_t begin = 0;
  while (begin <= config.size()) {
    const std::size_t end = std::min(config.find(';', begin), config.size());
    const std::string part = config.substr(begin, end - begin);
    const std::size_t equals = part.find('=');
    const bool well_formed =
        equals != std::string::npos && equals > 0 && equals + 1 < part.size() &&
        part.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == equals &&
        std::all_of(part.begin() + static_cast<std::ptrdiff_t>(equals) + 1, part.end(),
                    printable_ascii);
    if (!well_formed) {
      throw std::invalid_argument(fmt::format(
          "{} '{}' is not key=value;... with keys of a-z, 0-9, _ (e.g. register=local or "
          "split=MOD 2;groups=2)",
          what, report::printable(config)));
    }
    begin = end + 1;
  }
}

NcclTestsConverter::NcclTestsConverter(std::string config) : config_(std::move(config)) {
  report_.path = "nccl-tests output";
}

void NcclTestsConverter::add(const report::NcclTestsOutput& output, const std::string& timestamp) {
  for (const report::NcclTestsRun& run : output.runs) add_run(run, output.path, timestamp);
}

void NcclTestsConverter::add_run(const report::NcclTestsRun& run, const std::string& path,
                                 const std::string& timestamp) {
  const report::NcclTestsCollective* collective = report::find_nccl_tests_collective(run.program);
  if (collective == nullptr) {
    throw report::ReportError(
        path, run.line,
        fmt::format("'{}' has no collbench counterpart (collbench reads {})",
                    report::printable(run.program), report::nccl_tests_programs()));
  }
  report::ReportRow shared = run_row(run, *collective);
  shared.timestamp = timestamp;
  shared.config = config_;
  std::set<int> groups;
  for (const report::NcclTestsRankLine& rank : run.ranks) groups.insert(rank.group);
  if (groups.size() > 1 && config_.find("split=") == std::string::npos) {
    warnings_.push_back(
        report::ReportError(path, run.ranks.front().line,
                            fmt::format("the Rank lines name {} groups (NCCL_TESTS_SPLIT), but "
                                        "--config names no split=: the rows match collbench "
                                        "rows measured without a split",
                                        groups.size()))
            .what());
  }
  std::map<std::string, LeftOut> left_out;
  for (const report::NcclTestsDataLine& line : run.data) {
    const std::optional<std::string> dtype = report::collbench_dtype_of(line.type);
    const std::optional<std::string> redop =
        collective->reduces ? report::collbench_redop_of(line.redop) : std::string("none");
    if (!dtype || !redop) {
      LeftOut& entry = left_out[!dtype ? "type " + line.type : "reduction " + line.redop];
      if (entry.lines++ == 0) entry.first_line = line.line;
      continue;
    }
    report::ReportRow row = shared;
    row.dtype = *dtype;
    row.redop = *redop;
    row.root = collective->has_root ? line.root : -1;
    row.bytes = line.bytes;
    row.count = line.count;
    for (const bool in_place : {false, true}) {
      row.in_place = in_place;
      set_measurement(row, in_place ? line.in_place : line.out_of_place);
      add_row(row, line.line, path);
    }
  }
  for (const auto& [what, entry] : left_out) {
    warnings_.push_back(
        report::ReportError(path, entry.first_line,
                            fmt::format("{} data line(s) of {} left out, the first here: "
                                        "collbench does not measure it",
                                        entry.lines, report::printable(what)))
            .what());
  }
}

void NcclTestsConverter::add_row(report::ReportRow row, unsigned line, const std::string& path) {
  row.repeat = passes_[report::case_key(row)]++;
  for (const report::Column& column : report::kColumns) {
    try {
      column.check(row);
    } catch (const report::ColumnParseError& error) {
      throw report::ReportError(path, line,
                                fmt::format("column '{}': {}", column.name, error.what()));
    }
  }
  report_.rows.push_back({std::move(row), line});
}

std::string file_modified_utc(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw report::ReportError(path, 0, fmt::format("cannot open: {}", std::strerror(errno)));
  }
  std::tm utc{};
  gmtime_r(&info.st_mtime, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace collbench::collreport
