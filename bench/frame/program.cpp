// The shared main of the binaries.
#include "frame/program.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "build_info.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "frame/writable_file.hpp"
#include "launch/process_launch.hpp"
#include "reports/printable.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench {
namespace {

void print_listing(Program& program, const LaunchEnvironment& environment) {
  const bool one_process = environment.mode == LaunchMode::single_process;
  // A list needs no GPU and no other process: GPU counts follow the launch size.
  const int gpus = one_process ? visible_gpu_count() : environment.world_size;
  const std::vector<ListedCase> cases = program.list(gpus);
  if (environment.world_rank != 0) return;
  for (const ListedCase& listed : cases) {
    if (listed.description.empty()) {
      fmt::print("{}\n", listed.name);
    } else {
      fmt::print("{:<48} {}\n", listed.name, listed.description);
    }
  }
}

void check_outputs(const Program& program) {
  std::vector<std::pair<std::string, std::string>> outputs = program.output_files();
  outputs.emplace_back("--csv", program.common().csv_path);
  for (const auto& [option, path] : outputs) {
    if (!path.empty()) check_writable(option, path);
  }
}

// Joins the processes of the launch (none when this one drives every GPU) and collects what the
// report rows say about the run.
RunContext join_run(const Program& program, const LaunchEnvironment& environment) {
  RunContext run;
  run.environment = environment;
  throw_if_interrupted();
  // A unit of work's timeout also bounds the wait for the other processes.
  run.group = join_processes(environment, program.common().timeout_s);
  run.reporting = !run.group || run.group->rank() == 0;
  run.metadata = collect_run_metadata();
  if (run.group) record_launch(*run.group, run.metadata);
  throw_if_interrupted();
  return run;
}

int run(const std::vector<std::string>& args, Program& program) {
  program.parse(args);
  if (const std::optional<int> status = program.run_without_plan()) return *status;
  const CommonSettings& common = program.common();
  const LaunchEnvironment environment = detect_this_launch(common.launcher);
  if (common.list) {
    print_listing(program, environment);
    return kExitOk;
  }
  check_outputs(program);
  if (environment.mode == LaunchMode::single_process && visible_gpu_count() == 0) {
    fmt::print(stderr, "{}: error: no CUDA GPU is visible (driver, CUDA_VISIBLE_DEVICES){}\n",
               program.name(), common.list_offered ? "; --list needs none" : "");
    return kExitNoGpu;
  }
  RunContext run = join_run(program, environment);
  try {
    program.start(run);
    if (interrupt_signal() == 0) program.run_plan(run);
  } catch (...) {
    // Whatever escaped (an interrupt, a bug), a peer may be stuck: no collective teardown.
    program.abort();
    if (run.group) run.group->abort();
    throw;
  }
  const int status = program.finish(run);
  if (const int signal = interrupt_signal()) return 128 + signal;
  return status;
}

// --help or --version answered before anything is parsed; nullopt when neither was given.
std::optional<int> answer_help_or_version(const std::vector<std::string>& args,
                                          const Program& program) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      fmt::print("{}", report::wrap_help(program.help() + "\n" + exit_status_help()));
      return kExitOk;
    }
    if (args[i] == "--version") {
      fmt::print("{} {} (CUDA architectures {})\n", program.name(), kCollbenchVersion,
                 kCudaArchitectures);
      return kExitOk;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string exit_status_help() {
  return "Exit status: 0 all measured and correct; 1 wrong results, an error or a failed check; 2 "
         "bad input;\n3 a case timed out; 4 no CUDA GPU is visible; 130/143 interrupted "
         "(SIGINT/SIGTERM), rows so far kept.\n";
}

int RunContext::gpus() const {
  return group ? group->size() : visible_gpu_count();
}

int run_program(int argc, char** argv, Program& program) {
  const std::vector<std::string> args(argv, argv + argc);
  if (const std::optional<int> status = answer_help_or_version(args, program)) return *status;
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
