// The subcommands.
#include "cli/replay_commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <optional>
#include <stdexcept>

#include "check/workload_check.hpp"
#include "core/errors.hpp"
#include "io/output_file.hpp"
#include "rescale/rescale_workload.hpp"
#include "summary/summary_text.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay {
namespace {

// Imports the sources into `file` (committed by the caller).
void import_into(const ReplayOptions& options, OutputFile& file) {
  const SourceKind kind = options.from ? *options.from : detect_source_kind(options.inputs);
  WorkloadWriter writer(file.stream(), file.path());
  import_sources(kind, options.inputs, ImportOptions{options.redop}, writer);
  writer.finish();
}

void print_check(const std::string& name, const CheckSummary& summary, std::ostream& out) {
  fmt::print(out,
             "{}: ok: {} ranks, {} communicators, {} ops ({} collectives, {} send/recv pairs, {} "
             "groups): every op matched across its ranks, no deadlock\n",
             name, summary.world_size, summary.communicators, summary.ops, summary.collectives,
             summary.point_to_point_pairs, summary.groups);
}

void run_import(const ReplayOptions& options, std::ostream& out) {
  OutputFile file(options.output);
  import_into(options, file);
  file.commit();
  WorkloadReader reader(options.output);
  const WorkloadHeader& header = reader.header();
  fmt::print(out, "{}: {} ranks, {} communicators from {} {} files; assumed:\n", options.output,
             header.world_size, reader.communicators().count(), options.inputs.size(),
             header.source);
  for (const std::string& note : header.assumptions) fmt::print(out, "  - {}\n", note);
}

// The workload the inputs give, checked: the one named, or one imported in passing from the
// sources into `made` (a temporary file, removed with it), its messages naming the sources first.
struct CheckedInput {
  std::string path;
  std::string name;  // for messages: the workload's path, or "4 files"
  bool source_first = false;
  CheckSummary summary;
};

CheckedInput checked_input(const ReplayOptions& options, std::optional<OutputFile>& made) {
  const bool workload =
      options.inputs.size() == 1 && !options.from && looks_like_workload(options.inputs.front());
  if (workload) {
    if (options.redop) throw UsageError("--redop: applies to sources, not to a workload");
    const std::string& path = options.inputs.front();
    return {path, path, false, check_workload(path)};
  }
  made.emplace(OutputFile::temporary());
  import_into(options, *made);
  made->commit();
  return {made->path(), fmt::format("{} files", options.inputs.size()), true,
          check_workload(made->path(), {true})};
}

void run_check(const ReplayOptions& options, std::ostream& out) {
  std::optional<OutputFile> made;
  const CheckedInput input = checked_input(options, made);
  print_check(input.name, input.summary, out);
}

void run_rescale(const ReplayOptions& options, std::ostream& out) {
  const std::string& input = options.inputs.front();
  check_workload(input);  // only a sound workload is worth rescaling
  OutputFile file(options.output);
  WorkloadWriter writer(file.stream(), options.output);
  const RescaleOutcome outcome = rescale_workload(input, options.ranks, writer);
  writer.finish();
  file.commit();
  fmt::print(out, "{}: {} ranks ({} data-parallel x {} tensor-parallel) from {} ({} x {})\n",
             options.output, options.ranks, outcome.data_parallel_to, outcome.grid.tensor_parallel,
             outcome.grid.world_size, outcome.grid.data_parallel, outcome.grid.tensor_parallel);
  print_check(options.output, check_workload(options.output), out);
}

}  // namespace

void run_replay_command(const ReplayOptions& options, std::ostream& out) {
  switch (options.command) {
    case ReplayCommand::import:
      run_import(options, out);
      break;
    case ReplayCommand::check:
      run_check(options, out);
      break;
    case ReplayCommand::rescale:
      run_rescale(options, out);
      break;
    case ReplayCommand::summary:
      print_summary(summarize_workload(options.inputs.front()), out);
      break;
    case ReplayCommand::run:
      throw std::logic_error("run replays on GPUs: not a subcommand without a plan");
  }
}

WorkloadOps checked_replay_workload(const ReplayOptions& options) {
  std::optional<OutputFile> made;
  const CheckedInput input = checked_input(options, made);
  WorkloadOps ops = read_workload_ops(input.path, {input.source_first});
  ops.path = input.name;
  return ops;
}

}  // namespace collbench::replay
