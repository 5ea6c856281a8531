// The shared main of the benchmark binaries.
#include "frame/program.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>

#include "build_info.hpp"
#include "printable.hpp"
#include "core/errors.hpp"
#include "frame/silent_reporter.hpp"
#include "core/interrupt.hpp"
#include "launch/process_launch.hpp"
#include "measure/runner.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench {
namespace {

// Google Benchmark's run costs time quadratic in the benchmarks registered at once (about 17 s for
// 16,000 skipped ones, 0.1 s in batches of 256).
constexpr std::size_t kCasesPerBatch = 256;

std::string google_benchmark_help() {
  return "Google Benchmark flags:\n"
         "  --benchmark_filter=REGEX     run (or --list) only the cases whose name matches; a leading '-' "
         "negates\n"
         "  --benchmark_format=FORMAT    console, json or csv: Google Benchmark's own output on stdout\n"
         "  --benchmark_out=FILE         also write Google Benchmark's output to FILE\n"
         "  --benchmark_out_format=FMT   console, json or csv for --benchmark_out\n";
}

// The value of `--flag=value` in `arg`, when `arg` is that flag.
std::optional<std::string> flag_value(const std::string& arg, std::string_view flag) {
  const std::string prefix = std::string(flag) + "=";
  if (arg.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  return arg.substr(prefix.size());
}

// Whether `path` can be written without creating it now: an existing file must be writable, a new
// one needs a writable directory.
void check_writable(const std::string& option, const std::string& path) {
  const std::filesystem::path file(path);
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const bool exists = ::access(path.c_str(), F_OK) == 0;
  const char* what = nullptr;
  if (exists && std::filesystem::is_directory(file)) {
    what = "is a directory";
  } else if (exists ? ::access(path.c_str(), W_OK) != 0 : ::access(folder.c_str(), W_OK) != 0) {
    what = std::strerror(errno);
  }
  if (what != nullptr) throw UsageError(fmt::format("{} '{}' cannot be written: {}", option, path, what));
}

// Google Benchmark prints a complaint and runs nothing (exit 0) for a bad format or filter, and
// fails late on an output it cannot write: each is refused here, before anything runs.
void check_benchmark_flags(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    for (const char* flag : {"--benchmark_format", "--benchmark_out_format"}) {
      if (const auto value = flag_value(arg, flag); value && *value != "console" && *value != "json" &&
                                                    *value != "csv") {
        throw UsageError(fmt::format("{} '{}' is not console, json or csv", flag, *value));
      }
    }
    if (const auto value = flag_value(arg, "--benchmark_filter")) passes_benchmark_filter("", *value);
    if (const auto value = flag_value(arg, "--benchmark_out")) {
      if (value->empty()) throw UsageError("--benchmark_out '' cannot be written: no file named");
      check_writable("--benchmark_out", *value);
    }
  }
}

bool has_flag(const std::vector<std::string>& args, std::string_view prefix) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i].compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

void print_listing(BenchmarkProgram& program, const LaunchEnvironment& environment) {
  const bool one_process = environment.mode == LaunchMode::single_process;
  // A list needs no GPU and no other process: GPU counts follow the launch size.
  const int gpus = one_process ? visible_gpu_count() : environment.world_size;
  const std::vector<ListedCase> cases = program.list(gpus);
  if (environment.world_rank != 0) return;
  const std::string filter = benchmark::GetBenchmarkFilter();
  for (const ListedCase& listed : cases) {
    if (!passes_benchmark_filter(listed.name, filter)) continue;
    if (listed.description.empty()) {
      fmt::print("{}\n", listed.name);
    } else {
      fmt::print("{:<48} {}\n", listed.name, listed.description);
    }
  }
}

int run(const std::vector<std::string>& original_args, BenchmarkProgram& program) {
  check_benchmark_flags(original_args);
  const bool google_benchmark_output = has_flag(original_args, "--benchmark_format");
  const bool has_output_file = has_flag(original_args, "--benchmark_out=");
  std::vector<std::string> storage = original_args;
  std::vector<char*> pointers;
  for (std::string& arg : storage) pointers.push_back(arg.data());
  int count = static_cast<int>(pointers.size());
  pointers.push_back(nullptr);
  benchmark::Initialize(&count, pointers.data());
  program.parse(std::vector<std::string>(pointers.begin(), pointers.begin() + count));
  if (const std::optional<int> status = program.run_without_plan()) return *status;

  const LaunchEnvironment environment = detect_this_launch(program.launcher());
  if (program.listing()) {
    print_listing(program, environment);
    return kExitOk;
  }
  for (const auto& [option, path] : program.output_files()) {
    if (!path.empty()) check_writable(option, path);
  }
  if (environment.mode == LaunchMode::single_process && visible_gpu_count() == 0) {
    fmt::print(stderr, "{}: error: no CUDA GPU is visible (driver, CUDA_VISIBLE_DEVICES); --list needs none\n",
               program.name());
    return kExitNoGpu;
  }
  RunContext run;
  run.environment = environment;
  throw_if_interrupted();
  run.group = join_processes(environment, program.join_timeout_s());
  run.reporting = !run.group || run.group->rank() == 0;
  run.google_benchmark_output = google_benchmark_output;
  run.metadata = collect_run_metadata();
  if (run.group) record_launch(*run.group, run.metadata);
  throw_if_interrupted();
  try {
    const std::size_t cases = program.start(run);
    // Google Benchmark's own output (a format, a file) must come from one run; otherwise the plan
    // runs in batches, which keeps Google Benchmark's per-run cost linear in the cases and lets a
    // signal end the sweep between batches within a fraction of a second.
    const std::size_t batch = google_benchmark_output || has_output_file ? std::max<std::size_t>(cases, 1)
                                                                         : kCasesPerBatch;
    SilentReporter silent;
    for (std::size_t first = 0; first < cases && interrupt_signal() == 0; first += batch) {
      benchmark::ClearRegisteredBenchmarks();
      program.register_cases(first, std::min(batch, cases - first));
      benchmark::RunSpecifiedBenchmarks(google_benchmark_output && run.reporting ? nullptr : &silent);
    }
  } catch (...) {
    // Whatever escaped (an interrupt, a bug), a peer may be stuck: no collective teardown.
    program.abort();
    if (run.group) run.group->abort();
    throw;
  }
  benchmark::Shutdown();
  const int status = program.finish(run);
  if (const int signal = interrupt_signal()) return 128 + signal;
  return status;
}

}  // namespace

std::string exit_status_help() {
  return "Exit status: 0 all measured and correct; 1 wrong results, an error or a failed check; 2 bad input;\n"
         "3 a case timed out; 4 no CUDA GPU is visible; 130/143 interrupted (SIGINT/SIGTERM), rows so far kept.\n";
}

int RunContext::gpus() const {
  return group ? group->size() : visible_gpu_count();
}

bool passes_benchmark_filter(const std::string& name, const std::string& filter) {
  if (filter.empty() || filter == "all") return true;
  const bool negated = filter.front() == '-';
  try {
    const std::regex pattern(negated ? filter.substr(1) : filter);
    return std::regex_search(name, pattern) != negated;
  } catch (const std::regex_error&) {
    throw UsageError(fmt::format("--benchmark_filter '{}' is not a regular expression", filter));
  }
}

int run_program(int argc, char** argv, BenchmarkProgram& program) {
  const std::vector<std::string> args(argv, argv + argc);
  // Ours before Google Benchmark's, which would answer --help with its own usage.
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      fmt::print("{}", report::wrap_help(program.help() + "\n" + google_benchmark_help() + "\n" + exit_status_help()));
      return kExitOk;
    }
    if (args[i] == "--version") {
      fmt::print("{} {} (CUDA architectures {})\n", program.name(), kCollbenchVersion, kCudaArchitectures);
      return kExitOk;
    }
  }
  try {
    install_interrupt_handlers();
    return run(args, program);
  } catch (const UsageError& error) {
    fmt::print(stderr, "{}: error: {}\n", program.name(), error.what());
    return kExitUsage;
  } catch (const Interrupted& interrupted) {
    fmt::print(stderr, "{}: {}\n", program.name(), interrupted.what());
    return 128 + interrupted.signal();
  } catch (const std::exception& error) {
    fmt::print(stderr, "{}: error: {}\n", program.name(), error.what());
    return kExitFailed;
  }
}

}  // namespace collbench
