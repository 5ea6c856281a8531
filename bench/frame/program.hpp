// The frame every benchmark binary runs in (collbench, collbench_dpstep): one main that answers
// --help and --version, hands Google Benchmark its flags and checks them, lists the plan without
// a GPU, joins the processes of a launch, runs the registered benchmarks and turns every failure
// into one line and an exit status. A binary supplies a BenchmarkProgram.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launch/launch_environment.hpp"
#include "launch/process_group.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench {

// Exit statuses, the same for every binary (--help, README).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;   // wrong results, an error, a failed check
inline constexpr int kExitUsage = 2;    // bad input: nothing was measured
inline constexpr int kExitTimeout = 3;  // a case timed out; its communicators were aborted
inline constexpr int kExitNoGpu = 4;    // no CUDA GPU is visible (a listing needs none)
// 128 + signal after SIGINT (130) or SIGTERM (143), rows measured so far intact.
std::string exit_status_help();

// One line of a listing: a case's benchmark name and what it measures beyond it ("" for nothing).
struct ListedCase {
  std::string name;
  std::string description;
};

// What a run has once the frame has joined its processes.
struct RunContext {
  LaunchEnvironment environment;
  std::unique_ptr<ProcessGroup> group;  // one process per GPU; null when this one drives every GPU
  RunMetadata metadata;                 // with the launch recorded
  bool reporting = true;                // the only process, or world rank 0: prints and writes reports
  bool google_benchmark_output = false;  // --benchmark_format was given: Google Benchmark owns stdout
  // GPUs the plan may use: the processes of a launch, or the GPUs this process sees.
  int gpus() const;
};

class BenchmarkProgram {
 public:
  virtual ~BenchmarkProgram() = default;
  virtual std::string_view name() const = 0;
  // The program's own help; the frame adds Google Benchmark's flags and the exit statuses.
  virtual std::string help() const = 0;
  // Parses the arguments Google Benchmark left (args[0] is the program). Throws UsageError.
  virtual void parse(const std::vector<std::string>& args) = 0;
  virtual bool listing() const = 0;
  virtual std::string launcher() const = 0;  // --launcher
  virtual double join_timeout_s() const = 0;  // how long the processes of a launch may take to meet
  // The files the run will write, as (option, path); the frame checks that each can be written
  // before anything runs (a typo in a directory is bad input, not an error after the sweep).
  virtual std::vector<std::pair<std::string, std::string>> output_files() const { return {}; }
  // Work that needs no plan and no other process (collbench --topology): its exit status, or none.
  virtual std::optional<int> run_without_plan() { return std::nullopt; }
  // The plan for `gpus` GPUs (or processes) without touching a GPU: what --list prints.
  virtual std::vector<ListedCase> list(int gpus) = 0;
  // Plans for run.gpus() and prints its header where run.reporting; returns the number of cases.
  virtual std::size_t start(RunContext& run) = 0;
  // Registers one Google Benchmark per case for cases [first, first + count) of the plan
  // (RegisterBenchmark, fixed iterations, manual time). The frame registers and runs the plan in
  // batches: Google Benchmark's run takes time quadratic in the benchmarks registered at once.
  virtual void register_cases(std::size_t first, std::size_t count) = 0;
  // After the benchmarks ran (or a signal stopped them) on every process: the summary where
  // run.reporting, and the status.
  virtual int finish(RunContext& run) = 0;
  // Something escaped the benchmarks: end what could leave another process waiting forever.
  virtual void abort() noexcept = 0;
};

// The whole main of a benchmark binary.
int run_program(int argc, char** argv, BenchmarkProgram& program);

// Whether `name` passes Google Benchmark's --benchmark_filter (a regular expression; a leading '-'
// negates it; empty or "all" keeps everything). Throws UsageError for a filter that is not a
// regular expression.
bool passes_benchmark_filter(const std::string& name, const std::string& filter);

}  // namespace collbench
