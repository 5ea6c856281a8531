// The frame every binary runs in (collbench, collbench_dpstep, collbench_diagnose,
// collbench_linkpeak): one main that answers --help and --version, parses the command line, lists
// the plan without a GPU, checks that the outputs can be written, joins the processes of a
// launch, runs the plan and turns every failure and interrupt into one line and an exit status.
// A binary supplies a Program; those that run their cases as Google Benchmarks derive it from
// GoogleBenchmarkProgram (frame/google_benchmark_cases.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frame/settings/common_flags.hpp"
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

// One line of a listing: a case's name and what it measures beyond it ("" for nothing).
struct ListedCase {
  std::string name;
  std::string description;
};

// What a run has once the frame has joined its processes.
struct RunContext {
  LaunchEnvironment environment;
  std::unique_ptr<ProcessGroup> group;  // one process per GPU; null when this one drives every GPU
  RunMetadata metadata;                 // with the launch recorded
  bool reporting = true;  // the only process, or world rank 0: prints and writes reports
  // GPUs the plan may use: the processes of a launch, or the GPUs this process sees.
  int gpus() const;
};

class Program {
 public:
  virtual ~Program() = default;
  virtual std::string_view name() const = 0;
  // The help from the program's settings tables; the frame adds the exit statuses.
  virtual std::string help() const = 0;
  // Parses the arguments (args[0] is the program). Throws UsageError.
  virtual void parse(const std::vector<std::string>& args) = 0;
  // What the common flags gave (after parse): --list, --launcher, --timeout (which also bounds
  // the wait for the processes of a launch to meet) and --csv.
  virtual const CommonSettings& common() const = 0;
  // The files the run will write besides --csv, as (option, path); the frame checks that each
  // can be written before anything runs (a typo in a directory is bad input, not an error after
  // the sweep).
  virtual std::vector<std::pair<std::string, std::string>> output_files() const { return {}; }
  // Work that needs no plan and no other process (collbench --topology): its exit status, or none.
  virtual std::optional<int> run_without_plan() { return std::nullopt; }
  // The plan for `gpus` GPUs (or processes) without touching a GPU: what --list prints (for a
  // binary that takes --list).
  virtual std::vector<ListedCase> list(int /*gpus*/) { return {}; }
  // Plans for run.gpus() and prints its header where run.reporting.
  virtual void start(RunContext& run) = 0;
  // Runs the plan, stopping between its cases once a signal came (interrupt_signal()).
  virtual void run_plan(RunContext& run) = 0;
  // After the plan ran (or a signal stopped it) on every process: the summary where
  // run.reporting, and the status.
  virtual int finish(RunContext& run) = 0;
  // Something escaped the plan: end what could leave another process waiting forever.
  virtual void abort() noexcept = 0;
};

// The whole main of a binary.
int run_program(int argc, char** argv, Program& program);

}  // namespace collbench
