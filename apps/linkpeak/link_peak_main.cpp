// collbench_linkpeak: measures the GPU-to-GPU copy bandwidth this machine reaches (copy engine
// and SM kernel; one direction, both, all GPUs in a ring), prints the topology and a matrix per
// method, and writes CSV rows whose best one-direction copy is the per-GPU link peak that
// collbench's --link-peak turns into peak_fraction.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "build_info.hpp"
#include "core/byte_size.hpp"
#include "csv_writer.hpp"
#include "core/errors.hpp"
#include "frame/program.hpp"
#include "printable.hpp"
#include "link_peak_probe.hpp"
#include "link_peak_report.hpp"
#include "telemetry/topology.hpp"

namespace collbench::link_peak {
namespace {

// Bounds that turn a typo into an error instead of a run that never ends.
constexpr int kMaxIterations = 1'000'000;
constexpr int kMaxGpus = 1024;

struct Options {
  std::size_t bytes = std::size_t{1} << 30;
  int iters = 20;
  int warmup = 3;
  int gpus = 0;  // 0: every visible GPU
  std::string csv_path;
  std::vector<CopyMethod> methods = {CopyMethod::copy_engine, CopyMethod::sm_copy};
  std::vector<Direction> directions = {Direction::uni, Direction::bi, Direction::all};
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) items.push_back(item);
  return items;
}

std::vector<CopyMethod> parse_methods(const std::string& text) {
  std::vector<CopyMethod> methods;
  for (const std::string& name : split(text)) {
    if (name == "copy_engine")
      methods.push_back(CopyMethod::copy_engine);
    else if (name == "sm_copy")
      methods.push_back(CopyMethod::sm_copy);
    else
      throw UsageError(
          fmt::format("--methods '{}': '{}' is not copy_engine or sm_copy", text, name));
  }
  if (methods.empty()) throw UsageError("--methods is empty");
  return methods;
}

std::vector<Direction> parse_directions(const std::string& text) {
  std::vector<Direction> directions;
  for (const std::string& name : split(text)) {
    if (name == "uni")
      directions.push_back(Direction::uni);
    else if (name == "bi")
      directions.push_back(Direction::bi);
    else if (name == "all")
      directions.push_back(Direction::all);
    else
      throw UsageError(fmt::format("--directions '{}': '{}' is not uni, bi or all", text, name));
  }
  if (directions.empty()) throw UsageError("--directions is empty");
  return directions;
}

// Returns nullopt when --help was printed.
std::optional<Options> parse_command_line(int argc, char** argv) {
  Options options;
  std::string bytes = "1G", methods = "copy_engine,sm_copy", directions = "uni,bi,all";
  CLI::App app{
      "collbench_linkpeak: GPU-to-GPU copy bandwidth (copy engine and SM copy kernel) between "
      "every "
      "pair of GPUs, one direction, both directions and all GPUs at once; the best one-direction "
      "copy-engine figure is the per-GPU link peak for collbench --link-peak.",
      "collbench_linkpeak"};
  app.footer(exit_status_help());
  app.set_version_flag("--version", std::string("collbench_linkpeak ") + kCollbenchVersion);
  app.add_option("--bytes", bytes, "Bytes per copy (K/M/G suffixes)")->capture_default_str();
  app.add_option("--iters", options.iters,
                 "Timed iterations per measurement (the median is reported)")
      ->capture_default_str();
  app.add_option("--warmup", options.warmup, "Untimed iterations before them")
      ->capture_default_str();
  app.add_option("--gpus", options.gpus, "Use GPUs 0..N-1 (0: every visible GPU)")
      ->capture_default_str();
  app.add_option("--csv", options.csv_path,
                 "Write one CSV row per transfer (collbench's report schema)");
  app.add_option("--methods", methods, "copy_engine, sm_copy (comma separated)")
      ->capture_default_str();
  app.add_option("--directions", directions, "uni, bi, all (comma separated)")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << report::wrap_help(app.help());
    return std::nullopt;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << '\n';
    return std::nullopt;
  } catch (const CLI::ParseError& error) {
    throw UsageError(error.what());
  }
  options.bytes = parse_byte_size(bytes, "--bytes");
  options.methods = parse_methods(methods);
  options.directions = parse_directions(directions);
  if (options.iters < 1 || options.iters > kMaxIterations)
    throw UsageError(fmt::format("--iters {} is not from 1 to {}", options.iters, kMaxIterations));
  if (options.warmup < 0 || options.warmup > kMaxIterations)
    throw UsageError(fmt::format("--warmup {} is not from 0 to {}", options.warmup, kMaxIterations));
  if (options.gpus < 0 || options.gpus > kMaxGpus)
    throw UsageError(fmt::format("--gpus {} is not from 0 to {}", options.gpus, kMaxGpus));
  return options;
}

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

int run(const Options& options) {
  const Topology topology = probe_topology();
  const int visible = static_cast<int>(topology.gpus.size());
  if (visible == 0) {
    std::cerr << "collbench_linkpeak: error: no CUDA GPU is visible (driver, CUDA_VISIBLE_DEVICES)\n";
    return kExitNoGpu;
  }
  std::cout << format_topology(topology) << '\n';
  const int gpu_count = options.gpus > 0 ? options.gpus : visible;
  if (gpu_count > visible) {
    throw UsageError(fmt::format("--gpus {} but only {} GPU(s) visible", options.gpus, visible));
  }
  if (gpu_count < 2) {
    std::cerr << fmt::format("collbench_linkpeak: needs at least 2 GPUs, {} visible\n", gpu_count);
    return 1;
  }

  const RunMetadata metadata = collect_run_metadata();
  const ProbeSettings settings{options.bytes, options.warmup, options.iters};
  std::unique_ptr<report::CsvWriter> csv;
  if (!options.csv_path.empty()) csv = std::make_unique<report::CsvWriter>(options.csv_path);

  LinkPeakProbe probe(gpu_count, options.bytes);
  std::vector<report::ReportRow> rows;
  for (CopyMethod method : options.methods) {
    for (Direction direction : options.directions) {
      for (const std::vector<Transfer>& group : transfer_groups(direction, gpu_count)) {
        for (const TransferResult& result :
             probe.measure(method, group, options.warmup, options.iters)) {
          rows.push_back(make_row(metadata, settings, method, direction, gpus_in_group(group), result));
          if (csv) csv->write(rows.back());
          if (rows.back().status != report::kStatusOk) {
            std::cerr << fmt::format("collbench_linkpeak: {} {}: {} ({})\n", rows.back().algo,
                                     rows.back().config, rows.back().status, rows.back().reason);
          }
        }
      }
      std::cout << fmt::format("{} GB/s, {} ({}):\n", method_name(method),
                               direction_title(direction), format_byte_size(options.bytes));
      if (direction == Direction::all) {
        std::cout << "  " << format_ring(rows, method_name(method)) << "\n\n";
      } else {
        std::cout << format_bandwidth_matrix(rows, method_name(method), direction_name(direction),
                                             gpu_count)
                  << '\n';
      }
    }
  }
  std::cout << link_peak_summary(rows) << '\n';
  for (const report::ReportRow& row : rows) {
    if (row.status == report::kStatusError) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace collbench::link_peak

int main(int argc, char** argv) {
  try {
    const auto options = collbench::link_peak::parse_command_line(argc, argv);
    return options ? collbench::link_peak::run(*options) : 0;
  } catch (const collbench::UsageError& error) {
    std::cerr << "collbench_linkpeak: error: " << error.what() << '\n';
    return collbench::kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "collbench_linkpeak: error: " << error.what() << '\n';
    return 1;
  }
}
