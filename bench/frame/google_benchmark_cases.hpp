// Google Benchmark as the runner of a program's cases (collbench, collbench_dpstep): one benchmark
// registered per case (RegisterBenchmark, a fixed iteration count, manual time), run in batches;
// the --benchmark_* flags checked before anything runs and handed to Google Benchmark, whose
// --benchmark_filter selects what --list prints as it selects what runs, and whose own output
// appears only when --benchmark_format or --benchmark_out asks for it. The rest of the frame
// (frame/program.hpp) needs no Google Benchmark.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "frame/program.hpp"

namespace collbench {

class GoogleBenchmarkProgram : public Program {
 public:
  // The program's options, then Google Benchmark's flags.
  std::string help() const final;
  // Checks the --benchmark_* flags and hands them to Google Benchmark; parse_options gets the rest.
  void parse(const std::vector<std::string>& args) final;
  // The cases of list_cases that pass --benchmark_filter.
  std::vector<ListedCase> list(int gpus) final;
  // Registers and runs the plan in batches: Google Benchmark's run takes time quadratic in the
  // benchmarks registered at once, and a signal ends the plan between batches.
  void run_plan(RunContext& run) final;

 protected:
  // --benchmark_format was given: Google Benchmark's output owns stdout.
  bool google_benchmark_output() const { return google_benchmark_output_; }

  virtual std::string options_help() const = 0;
  // The arguments Google Benchmark left (args[0] is the program). Throws UsageError.
  virtual void parse_options(const std::vector<std::string>& args) = 0;
  virtual std::vector<ListedCase> list_cases(int gpus) = 0;
  // The cases start() planned.
  virtual std::size_t case_count() const = 0;
  // Registers one Google Benchmark per case for cases [first, first + count) of the plan
  // (RegisterBenchmark, fixed iterations, manual time).
  virtual void register_cases(std::size_t first, std::size_t count) = 0;

 private:
  bool google_benchmark_output_ = false;
  bool output_file_ = false;  // --benchmark_out
};

// Whether `name` passes Google Benchmark's --benchmark_filter (a regular expression; a leading '-'
// negates it; empty or "all" keeps everything). Throws UsageError for a filter that is not a
// regular expression.
bool passes_benchmark_filter(const std::string& name, const std::string& filter);

}  // namespace collbench
