// The Google Benchmark adapter of the frame.
#include "frame/google_benchmark_cases.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <string_view>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "frame/writable_file.hpp"

namespace collbench {
namespace {

// Google Benchmark's run costs time quadratic in the benchmarks registered at once (about 17 s for
// 16,000 skipped ones, 0.1 s in batches of 256).
constexpr std::size_t kCasesPerBatch = 256;
// Far beyond any filter of case names.
constexpr std::size_t kMaxFilterChars = 1000;

// Prints nothing: each binary's own console table is its display, unless the user asks for Google
// Benchmark's output (--benchmark_format).
class SilentReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// The value of `--flag=value` in `arg`, when `arg` is that flag.
std::optional<std::string> flag_value(const std::string& arg, std::string_view flag) {
  const std::string prefix = std::string(flag) + "=";
  if (arg.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  return arg.substr(prefix.size());
}

// Google Benchmark prints a complaint and runs nothing (exit 0) for a bad format or filter, and
// fails late on an output it cannot write: each is refused here, before anything runs.
void check_benchmark_flags(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    for (const char* flag : {"--benchmark_format", "--benchmark_out_format"}) {
      const std::optional<std::string> value = flag_value(arg, flag);
      if (value && *value != "console" && *value != "json" && *value != "csv") {
        throw UsageError(
            fmt::format("{} '{}' is not console, json or csv", flag, shown_value(*value)));
      }
    }
    if (const auto value = flag_value(arg, "--benchmark_filter"))
      passes_benchmark_filter("", *value);
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

}  // namespace

std::string GoogleBenchmarkProgram::help() const {
  return options_help() +
         "\nGoogle Benchmark flags:\n"
         "  --benchmark_filter=REGEX     run (or --list) only the cases whose name matches; a "
         "leading '-' negates\n"
         "  --benchmark_format=FORMAT    console, json or csv: Google Benchmark's own output on "
         "stdout\n"
         "  --benchmark_out=FILE         also write Google Benchmark's output to FILE\n"
         "  --benchmark_out_format=FMT   console, json or csv for --benchmark_out\n";
}

void GoogleBenchmarkProgram::parse(const std::vector<std::string>& args) {
  check_benchmark_flags(args);
  google_benchmark_output_ = has_flag(args, "--benchmark_format");
  output_file_ = has_flag(args, "--benchmark_out=");
  std::vector<std::string> storage = args;
  std::vector<char*> pointers;
  for (std::string& arg : storage) pointers.push_back(arg.data());
  int count = static_cast<int>(pointers.size());
  pointers.push_back(nullptr);
  benchmark::Initialize(&count, pointers.data());
  parse_options(std::vector<std::string>(pointers.begin(), pointers.begin() + count));
}

std::vector<ListedCase> GoogleBenchmarkProgram::list(int gpus) {
  const std::string filter = benchmark::GetBenchmarkFilter();
  std::vector<ListedCase> listed = list_cases(gpus);
  listed.erase(std::remove_if(listed.begin(), listed.end(),
                              [&filter](const ListedCase& c) {
                                return !passes_benchmark_filter(c.name, filter);
                              }),
               listed.end());
  return listed;
}

void GoogleBenchmarkProgram::run_plan(RunContext& run) {
  const std::size_t cases = case_count();
  // Google Benchmark's own output (a format, a file) must come from one run; otherwise the plan
  // runs in batches, which keeps Google Benchmark's per-run cost linear in the cases and lets a
  // signal end the sweep between batches within a fraction of a second.
  const std::size_t batch =
      google_benchmark_output_ || output_file_ ? std::max<std::size_t>(cases, 1) : kCasesPerBatch;
  SilentReporter silent;
  for (std::size_t first = 0; first < cases && interrupt_signal() == 0; first += batch) {
    benchmark::ClearRegisteredBenchmarks();
    register_cases(first, std::min(batch, cases - first));
    benchmark::RunSpecifiedBenchmarks(google_benchmark_output_ && run.reporting ? nullptr
                                                                                : &silent);
  }
  benchmark::Shutdown();
}

bool passes_benchmark_filter(const std::string& name, const std::string& filter) {
  if (filter.empty() || filter == "all") return true;
  // std::regex compiles recursively: a pattern of 100,000 characters overflows the stack.
  if (filter.size() > kMaxFilterChars) {
    throw UsageError(fmt::format("--benchmark_filter '{}' is longer than {} characters",
                                 shown_value(filter), kMaxFilterChars));
  }
  const bool negated = filter.front() == '-';
  try {
    const std::regex pattern(negated ? filter.substr(1) : filter);
    return std::regex_search(name, pattern) != negated;
  } catch (const std::regex_error&) {
    throw UsageError(
        fmt::format("--benchmark_filter '{}' is not a regular expression", shown_value(filter)));
  }
}

}  // namespace collbench
