// collbench_replay's settings table, and which of its options each subcommand takes.
#include "cli/replay_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "algorithms/algorithm_registry.hpp"
#include "core/errors.hpp"
#include "frame/settings/command_line.hpp"
#include "frame/settings/communicator_axes.hpp"
#include "frame/settings/value_parsers.hpp"

namespace collbench::replay {
namespace {

// A rank count beyond this is a typo, not a machine.
constexpr int kMaxRanks = 1 << 20;
// Iterations beyond these are typos: every timed one's op times are kept (and gathered).
constexpr int kMaxWarmup = 10'000;
constexpr int kMaxIters = 100'000;

// What each subcommand takes: its inputs and which options belong to it.
struct CommandRule {
  ReplayCommand command;
  const char* name;
  bool many_inputs;    // sources (or one workload) rather than exactly one workload
  bool writes;         // -o is needed
  bool takes_ranks;    // --ranks is needed
  bool reads_sources;  // --from and --redop apply
  bool replays;        // the replay's options and the common flags apply (run)
};

const std::vector<CommandRule>& command_rules() {
  static const std::vector<CommandRule> rules = {
      {ReplayCommand::import, "import", true, true, false, true, false},
      {ReplayCommand::check, "check", true, false, false, true, false},
      {ReplayCommand::rescale, "rescale", false, true, true, false, false},
      {ReplayCommand::summary, "summary", false, false, false, false, false},
      {ReplayCommand::run, "run", true, false, false, true, true},
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

// Each --algo entry as the registry resolves it (settings, environment overrides), for all_reduce;
// "all": every all_reduce implementation at its defaults. An entry resolving as an earlier one
// did ("ring,all", "ring:ctas=128" at the default) is dropped: one combination each. Throws
// UsageError naming a bad entry.
std::vector<AlgorithmChoice> resolve_all_reduce_algos(const std::vector<std::string>& entries) {
  std::vector<std::string> texts;
  for (const std::string& entry : entries) {
    if (entry == "all") {
      for (const std::string& name : algorithm_names(OpKind::all_reduce)) texts.push_back(name);
    } else {
      texts.push_back(entry);
    }
  }
  std::vector<AlgorithmChoice> choices;
  for (const std::string& text : texts) {
    AlgorithmChoice choice = resolve_algorithm(text);
    choice.entry = find_algorithm(choice.name(), OpKind::all_reduce);
    if (choice.entry == nullptr) {
      throw UsageError(fmt::format("--algo {}: does not implement all_reduce (one of: {}, all)",
                                   text, fmt::join(algorithm_names(OpKind::all_reduce), ", ")));
    }
    const std::string key = choice.key();
    const bool repeated = std::any_of(choices.begin(), choices.end(),
                                      [&](const AlgorithmChoice& c) { return c.key() == key; });
    if (!repeated) choices.push_back(std::move(choice));
  }
  return choices;
}

std::vector<Setting<ReplayOptions>> make_settings() {
  using O = ReplayOptions;
  using T = ValueKind;
  std::vector<Setting<O>> s;
  s.push_back(Setting<O>("COMMAND", T::text, "", "import, check, rescale, summary or run (below)")
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
  s.push_back(Setting<O>("-w,--warmup", T::integer, "5",
                         "Untimed iterations of the whole window before the timed ones (run)")
                  .within(0, kMaxWarmup)
                  .to([](O& o, const std::string& v) { o.replay.warmup = std::stoi(v); }));
  s.push_back(
      Setting<O>("-n,--iters", T::integer, "20", "Timed iterations of the whole window (run)")
          .within(1, kMaxIters)
          .to([](O& o, const std::string& v) { o.replay.iters = std::stoi(v); }));
  s.push_back(Setting<O>("--check", T::flag, "",
                         "One more iteration with test values: every op's output checked (run)")
                  .to([](O& o, const std::string& v) { o.replay.check = v == "true"; }));
  s.push_back(
      Setting<O>("--gaps", T::flag, "",
                 "Keep the recorded gaps between a stream's ops, as delays on the GPU (run)")
          .to([](O& o, const std::string& v) { o.replay.gaps = v == "true"; }));
  s.push_back(Setting<O>("--algo", T::text, "nccl",
                         "What runs the all_reduce ops, comma separated: nccl, hand-built "
                         "all-reduces with optional settings (ring:ctas=32, as collbench's), or "
                         "all; each replays the workload in turn (run)")
                  .as_list()
                  .to_all([](O& o, const std::vector<std::string>& v) {
                    o.all_reduce_algos = resolve_all_reduce_algos(v);
                  }));
  s.push_back(Setting<O>("--issue", T::text, "direct",
                         "How each rank issues an iteration, comma separated: direct (its thread "
                         "launches every op) or graph (captured once into a CUDA graph, launched "
                         "per iteration); each replays the workload in turn (run)")
                  .as_list()
                  .to_all([](O& o, const std::vector<std::string>& v) {
                    o.graphs.clear();
                    for (const std::string& mode : v) {
                      if (mode != "direct" && mode != "graph") {
                        throw UsageError(
                            fmt::format("--issue {}: use direct, graph, or both", mode));
                      }
                      o.graphs.push_back(mode == "graph");
                    }
                    dedupe(o.graphs);
                  }));
  s.push_back(
      Setting<O>("--json", T::text, "", "Write the run, the figures and every op as JSON (run)")
          .to([](O& o, const std::string& v) { o.json_path = v; }));
  s.push_back(Setting<O>("--ops-csv", T::text, "",
                         "Write one line per replayed op of every rank to this CSV file (run)")
                  .to([](O& o, const std::string& v) { o.ops_csv_path = v; }));
  return s;
}

const CommonFlags& replay_common_flags() {
  static const CommonFlags flags = {
      {CommonFlag::timeout, "300", "Seconds an iteration may take"},
      {CommonFlag::csv, "",
       "Write report rows (collreport's schema: per communicator, op and dtype, and the window) "
       "to this CSV file"},
      {CommonFlag::launcher, "", ""},
  };
  return flags;
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
  run FILE.jsonl | SOURCE... [-w N] [-n N] [--check] [--gaps] [--csv F] [--ops-csv F] [--json F]
      [--launcher L] [--nccl-algo A,..] [--nccl-proto P,..] [--nccl-max-ctas N,..]
      [--register none,local] [--algo nccl,oneshot,..] [--issue direct,graph]
      Replays the checked workload on world_size GPUs (one process driving them, or one process
      per rank under mpirun): its communicators split from the world, every rank's ops issued in
      order on its recorded streams, each iteration of the whole window started together on
      every rank; times per op and per window, busbw, against the recorded times. --csv writes
      report rows that collreport summarizes and compares (a CI gate between two replays),
      --ops-csv a line per op of every rank. Several values of the swept settings replay the
      workload once per combination, each with its own communicators and warm-up, then say which
      combination is fastest per communicator and op and for the window. --algo runs the
      all_reduce ops on hand-built algorithms (collbench --help lists them and their settings);
      a combination one cannot run here (its shapes, registered buffers) is skipped, saying why.
      --issue graph captures each rank's iteration once into a CUDA graph and launches that.
A refused workload is bad input (exit status 2); so is a workload of more ranks than GPUs (or than
processes): rescale it first.)";

const std::vector<Setting<CommunicatorAxes>>& replay_axis_settings() {
  static const std::vector<Setting<CommunicatorAxes>> settings = communicator_axis_settings(
      "each combination replaying the whole workload in turn, the default first (run; "
      "--register symmetric not built yet)");
  return settings;
}

void declare(CommandLine& line, ReplayOptions& options) {
  line.add(replay_settings(), options);
  line.add(replay_axis_settings(), options.axes, "Settings swept over the replay (run only)");
  line.add(common_settings(replay_common_flags()), options.common, "Run (run only)");
  line.add_footer(kSubcommands);
}

const CommandLineDeclaration<ReplayOptions> kCommandLine = {
    "collbench_replay",
    "collbench_replay: a real job's communication as a workload collbench can check and replay. "
    "It imports NCCL logs, PyTorch profiler traces or Flight Recorder dumps into one workload "
    "format (JSON Lines, docs/replay.md), checks that a workload cannot deadlock before any GPU "
    "work, rescales it to another rank count, summarizes it, and replays it on GPUs (run): only "
    "run needs a GPU.",
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
  for (const char* option : {"--warmup", "--iters", "--check", "--gaps", "--json", "--csv",
                             "--ops-csv", "--launcher", "--timeout", "--nccl-algo", "--nccl-proto",
                             "--nccl-max-ctas", "--register", "--algo", "--issue"})
    refuse_unless(rule.replays, option);
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

// Symmetric windows are collective, every member of a communicator registering buffers of one
// size in one order, while the replay's buffers are per rank and stream, of each rank's own sizes.
void refuse_symmetric_registration(const CommunicatorAxes& axes) {
  for (BufferRegistration mode : axes.registrations) {
    if (mode == BufferRegistration::symmetric) {
      throw UsageError(
          "--register symmetric: not built for replays yet (symmetric windows need buffers of "
          "one size on every member of a communicator); use none or local");
    }
  }
}

void check_command(ReplayOptions& options, const CommandLine& line) {
  if (!line.given("COMMAND")) {
    throw UsageError(fmt::format("a subcommand is needed: {}", fmt::join(command_names(), ", ")));
  }
  for (const CommandRule& rule : command_rules()) {
    if (rule.command == options.command) check_fits_command(rule, line);
  }
  if (options.command != ReplayCommand::run) return;
  refuse_symmetric_registration(options.axes);
  refuse_max_ctas_beside_environment(options.axes);
  // What the user's NCCL_* variables already choose is what a "default" entry runs: the rows say
  // so, as collbench's.
  apply_environment_defaults(read_nccl_environment(), options.axes);
}

}  // namespace

std::string replay_help() {
  return kCommandLine.help();
}

ReplayOptions parse_replay_options(const std::vector<std::string>& args) {
  return kCommandLine.parse(args, check_command);
}

}  // namespace collbench::replay
