// collbench_replay's settings table, and which of its options each subcommand takes.
#include "cli/replay_options.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "frame/settings/command_line.hpp"

namespace collbench::replay {
namespace {

// A rank count beyond this is a typo, not a machine.
constexpr int kMaxRanks = 1 << 20;

// What each subcommand takes: its inputs and which options belong to it.
struct CommandRule {
  ReplayCommand command;
  const char* name;
  bool many_inputs;    // sources (or one workload) rather than exactly one workload
  bool writes;         // -o is needed
  bool takes_ranks;    // --ranks is needed
  bool reads_sources;  // --from and --redop apply
};

const std::vector<CommandRule>& command_rules() {
  static const std::vector<CommandRule> rules = {
      {ReplayCommand::import, "import", true, true, false, true},
      {ReplayCommand::check, "check", true, false, false, true},
      {ReplayCommand::rescale, "rescale", false, true, true, false},
      {ReplayCommand::summary, "summary", false, false, false, false},
  };
  return rules;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const CommandRule& rule : command_rules()) names.emplace_back(rule.name);
  return names;
}

std::vector<std::string> source_kind_names() {
  std::vector<std::string> names;
  for (SourceKind kind : {SourceKind::nccl_log, SourceKind::kineto, SourceKind::flight_recorder})
    names.emplace_back(name_of(kind));
  return names;
}

std::vector<std::string> reduce_op_names() {
  std::vector<std::string> names;
  for (ReduceOp op : all_reduce_ops()) names.emplace_back(name_of(op));
  return names;
}

std::vector<Setting<ReplayOptions>> make_settings() {
  using O = ReplayOptions;
  using T = ValueKind;
  std::vector<Setting<O>> s;
  s.push_back(Setting<O>("COMMAND", T::text, "", "import, check, rescale or summary (below)")
                  .one_of(command_names(), "subcommand")
                  .to([](O& o, const std::string& v) {
                    for (const CommandRule& rule : command_rules()) {
                      if (v == rule.name) o.command = rule.command;
                    }
                  }));
  s.push_back(Setting<O>("SOURCE", T::text, "",
                         "Source files (one per process or rank), or one workload (.jsonl)")
                  .as_list()
                  .to_all([](O& o, const std::vector<std::string>& v) { o.inputs = v; }));
  s.push_back(Setting<O>("-o,--output", T::text, "", "The workload to write (import, rescale)")
                  .to([](O& o, const std::string& v) { o.output = v; }));
  s.push_back(Setting<O>("--from", T::text, "",
                         "The sources' kind, when not told from their content (import, check)")
                  .one_of(source_kind_names(), "source kind")
                  .to([](O& o, const std::string& v) { o.from = parse_source_kind(v); }));
  s.push_back(Setting<O>("--redop", T::text, "",
                         "The reduction of sources that record none; default sum (import, check)")
                  .one_of(reduce_op_names(), "reduction")
                  .to([](O& o, const std::string& v) { o.redop = parse_reduce_op(v); }));
  s.push_back(Setting<O>("--ranks", T::integer, "", "The rank count to rescale to (rescale)")
                  .within(1, kMaxRanks, fmt::format("a rank count from 1 to {}", kMaxRanks))
                  .to([](O& o, const std::string& v) { o.ranks = std::stoi(v); }));
  return s;
}

const std::vector<Setting<ReplayOptions>>& replay_settings() {
  static const std::vector<Setting<ReplayOptions>> settings = make_settings();
  return settings;
}

const char* const kSubcommands = R"(Subcommands:
  import SOURCE... -o FILE.jsonl [--from KIND] [--redop OP]
      One file per process or rank: NCCL logs (nccl-log), PyTorch profiler traces, .json or
      .json.gz (kineto), Flight Recorder dumps (flight-recorder); the kind is told from the files
      unless --from names it. --redop sets the reduction the profiler and Flight Recorder do not
      record (sum).
  check FILE.jsonl | SOURCE... [--from KIND] [--redop OP]
      Matches every communicator's ops across its ranks by sequence number and every send with
      its receive, and refuses a workload that would deadlock or disagree: one line naming the
      place and the mismatch.
  rescale FILE.jsonl --ranks N -o FILE.jsonl
      For N ranks, when the communicators form a data-parallel x tensor-parallel grid: the
      data-parallel replicas grow or shrink, tensor-parallel groups stay whole.
  summary FILE.jsonl
      Communicators, calls and bytes per communicator and op, recorded GPU time.
A refused workload is bad input (exit status 2). Replaying a workload on GPUs is not built yet.)";

void declare(CommandLine& line, ReplayOptions& options) {
  line.add(replay_settings(), options);
  line.add_footer(kSubcommands);
}

const CommandLineDeclaration<ReplayOptions> kCommandLine = {
    "collbench_replay",
    "collbench_replay: a real job's communication as a workload collbench can check and replay. "
    "It imports NCCL logs, PyTorch profiler traces or Flight Recorder dumps into one workload "
    "format (JSON Lines, docs/replay.md), checks that a workload cannot deadlock before any GPU "
    "work, rescales it to another rank count, and summarizes it. It needs no GPU.",
    declare};

// Refuses an option the subcommand does not take, and a missing one it needs.
void check_fits_command(const CommandRule& rule, const CommandLine& line) {
  const auto refuse_unless = [&](bool allowed, const char* option) {
    if (!allowed && line.given(option)) {
      throw UsageError(fmt::format("{}: not an option of {}", option, rule.name));
    }
  };
  refuse_unless(rule.writes, "--output");
  refuse_unless(rule.takes_ranks, "--ranks");
  refuse_unless(rule.reads_sources, "--from");
  refuse_unless(rule.reads_sources, "--redop");
  if (rule.writes && !line.given("--output")) {
    throw UsageError(fmt::format("{}: -o FILE.jsonl is needed (the workload to write)", rule.name));
  }
  if (rule.takes_ranks && !line.given("--ranks")) {
    throw UsageError(fmt::format("{}: --ranks N is needed", rule.name));
  }
  const std::size_t inputs = line.values("SOURCE").size();
  if (inputs == 0 || (!rule.many_inputs && inputs != 1)) {
    throw UsageError(fmt::format("{}: takes {}, given {} files", rule.name,
                                 rule.many_inputs ? "source files or one workload" : "one workload",
                                 inputs));
  }
}

void check_command(ReplayOptions& options, const CommandLine& line) {
  if (!line.given("COMMAND")) {
    throw UsageError(fmt::format("a subcommand is needed: {}", fmt::join(command_names(), ", ")));
  }
  for (const CommandRule& rule : command_rules()) {
    if (rule.command == options.command) check_fits_command(rule, line);
  }
}

}  // namespace

std::string replay_help() {
  return kCommandLine.help();
}

ReplayOptions parse_replay_options(const std::vector<std::string>& args) {
  return kCommandLine.parse(args, check_command);
}

}  // namespace collbench::replay
