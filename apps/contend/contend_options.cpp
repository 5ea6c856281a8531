// collbench_contend's command line, parsed with CLI11 and checked by hand so that every bad value
// is named in one line.
#include "contend_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "contend_errors.hpp"
#include "reports/printable.hpp"

namespace collbench::contend {
namespace {

// Bounds that turn a typo into an error rather than a machine brought to its knees.
constexpr long kMaxIndex = 1 << 20;
constexpr long kMaxBusyThreads = 1024;
constexpr double kMaxSeconds = 1e7;  // 115 days; far beyond any run, yet no clock overflows

const char* const kDescription =
    "collbench_contend: another program's load on this machine, one fault per invocation, to "
    "test the verdicts of collbench_diagnose and `collreport ranks` against faults collbench "
    "does not make itself. It uses no part of collbench's engine (no NCCL): plain CUDA, cuBLAS "
    "and threads.";

const char* const kFooter = R"(Faults, one per invocation:
  --sm-load GPU [--sm-kind gemm|spin]
      Another process's compute on GPU. gemm (default): bf16 GEMMs of 8192x8192x8192 through
      cuBLAS, a few in flight on one stream. spin: a kernel holding every SM (as many blocks as
      fit at once) for about 1 ms per launch, looped.
  --link-load SRC:DST [--direction one|both]
      Peer copies of 256 MiB from GPU SRC to GPU DST (and back with both), peer access enabled,
      on 2 streams per direction: the copy engines saturate that NVLink direction.
  --cpu-starve --target-rank R [--target-process NAME] [--core C] [--cpu-threads N] [--cpu-policy P] [--wait-s S]
      N busy threads (4) pinned to core C (default: the last core this process may use), and the
      target's threads pinned to the same core. Without --target-process the target is every
      thread of rank R's process: one whose environment has OMPI_COMM_WORLD_RANK (else PMI_RANK,
      SLURM_PROCID, RANK) = R and whose name starts with collbench (one process per GPU). With
      it, the threads named cb-rank-R of the process NAME (one process driving every GPU, whose
      rank threads collbench names so). It waits up to --wait-s (60) for the target, polling
      every 1 ms, so start it before the tool; then it pins again every 10 ms, catching threads
      made later (NCCL's) and affinities they reset.

Ranks: the truth names the collbench ranks affected ASSUMING ONE NODE WHERE GPU INDEX == RANK,
as for collbench in one process and under mpirun with one GPU per process: sm_load on GPU g is
rank g, link_load SRC:DST ranks SRC and DST, cpu_starve rank R.

Ready: once the load is established (the first GEMMs or copies done, the target pinned) it
writes --truth FILE:
  {"truth": {"fault": "sm_load"|"link_load"|"cpu_starve", "ranks": [...], "gpus": [...],
             "direction": "0->1"|"0<->1"|null, "detail": "..."}}
(gpus: the GPUs loaded, none for cpu_starve), then prints exactly one line to stdout,
  collbench_contend: ready: <detail>
and flushes it. --cpu-starve first says on stderr that it is waiting for its target. The load
stops --duration-s seconds after ready (0: at SIGINT or SIGTERM); everything is freed, and a
last line on stderr says how heavy the load was (GEMM TFLOP/s, copy GB/s per direction).

Exit status: 0 stopped as asked; 1 a CUDA, cuBLAS or system call failed, or the target never
came; 2 bad input; 4 no CUDA GPU is visible.
)";

// A bad value as the message quotes it: escaped and cut (a pasted megabyte stays one short line).
std::string quoted(const std::string& text) {
  return report::printable(text);
}

std::optional<long> whole_number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return {};
  errno = 0;
  const long value = std::strtol(text.c_str(), nullptr, 10);
  if (errno != 0 || value > kMaxIndex) return {};
  return value;
}

int index_option(const std::string& option, const std::string& text, const char* what) {
  const std::optional<long> value = whole_number(text);
  if (!value) throw UsageError(fmt::format("{} {}: not {}", option, quoted(text), what));
  return static_cast<int>(*value);
}

// Seconds: finite, not negative, and above 0 when `positive`.
double seconds_option(const std::string& option, const std::string& text, bool positive) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(value) || value < 0 ||
      value > kMaxSeconds || (positive && value == 0)) {
    throw UsageError(fmt::format("{} {}: not a number of seconds ({})", option, quoted(text),
                                 positive ? "above 0, at most 1e7" : "0 to 1e7"));
  }
  return value;
}

void parse_link(const std::string& text, LinkLoadOptions& link) {
  const std::size_t colon = text.find(':');
  const std::string bad =
      fmt::format("--link-load {}: not SRC:DST (two GPU indices)", quoted(text));
  if (colon == std::string::npos) throw UsageError(bad);
  const std::optional<long> src = whole_number(text.substr(0, colon));
  const std::optional<long> dst = whole_number(text.substr(colon + 1));
  if (!src || !dst) throw UsageError(bad);
  if (*src == *dst)
    throw UsageError(fmt::format("--link-load {}: SRC and DST are one GPU", quoted(text)));
  link.src_gpu = static_cast<int>(*src);
  link.dst_gpu = static_cast<int>(*dst);
}

// The raw text of every option, checked after parsing so that each message names its value.
struct RawOptions {
  std::string sm_load, sm_kind = "gemm", link_load, direction = "one";
  bool cpu_starve = false;
  std::string core, cpu_threads = "4", cpu_policy = "fair", target_rank, target_process,
                    wait_s = "60";
  std::string duration_s = "0", truth_path;
};

struct GivenOptions {
  CLI::Option *sm_kind, *direction, *core, *cpu_threads, *cpu_policy, *target_rank, *target_process,
      *wait_s;
};

GivenOptions declare(CLI::App& app, RawOptions& raw) {
  app.add_option("--sm-load", raw.sm_load, "Load GPU with another process's compute")
      ->type_name("GPU");
  GivenOptions given{};
  given.sm_kind = app.add_option("--sm-kind", raw.sm_kind, "gemm or spin")
                      ->type_name("KIND")
                      ->capture_default_str();
  app.add_option("--link-load", raw.link_load, "Saturate the link from GPU SRC to GPU DST")
      ->type_name("SRC:DST");
  given.direction = app.add_option("--direction", raw.direction, "one or both")
                        ->type_name("DIR")
                        ->capture_default_str();
  app.add_flag("--cpu-starve", raw.cpu_starve, "Starve one rank's host threads of CPU");
  given.core = app.add_option("--core", raw.core, "The core to crowd (default: the last usable)")
                   ->type_name("C");
  given.cpu_threads = app.add_option("--cpu-threads", raw.cpu_threads, "Busy threads")
                          ->type_name("N")
                          ->capture_default_str();
  given.cpu_policy =
      app.add_option("--cpu-policy", raw.cpu_policy,
                     "fair (ordinary busy threads), nice (and the target at nice 19) "
                     "or realtime (SCHED_FIFO, 8 ms busy, 2 ms asleep: the target "
                     "runs only in the gaps; needs CAP_SYS_NICE)")
          ->type_name("POLICY")
          ->capture_default_str();
  given.target_rank =
      app.add_option("--target-rank", raw.target_rank, "The rank to starve")->type_name("R");
  given.target_process = app.add_option("--target-process", raw.target_process,
                                        "The one process driving every GPU (its name)")
                             ->type_name("NAME");
  given.wait_s = app.add_option("--wait-s", raw.wait_s, "Seconds to wait for the target")
                     ->type_name("S")
                     ->capture_default_str();
  app.add_option("--duration-s", raw.duration_s, "Seconds of load after ready (0: until a signal)")
      ->type_name("S")
      ->capture_default_str();
  app.add_option("--truth", raw.truth_path, "Write the ground truth (JSON) here once ready")
      ->type_name("FILE");
  return given;
}

Fault chosen_fault(const RawOptions& raw) {
  const int chosen = !raw.sm_load.empty() + !raw.link_load.empty() + raw.cpu_starve;
  if (chosen == 0)
    throw UsageError("no fault: choose one of --sm-load GPU, --link-load SRC:DST, --cpu-starve");
  if (chosen > 1)
    throw UsageError("more than one fault: choose one of --sm-load, --link-load, --cpu-starve");
  if (!raw.sm_load.empty()) return Fault::sm_load;
  return raw.link_load.empty() ? Fault::cpu_starve : Fault::link_load;
}

// An option that belongs to another fault is an error, not silently ignored.
void refuse_foreign(const GivenOptions& given, Fault fault) {
  const auto refuse = [](const CLI::Option* option, const char* needs) {
    if (option->count() > 0)
      throw UsageError(fmt::format("{} needs {}", option->get_name(), needs));
  };
  if (fault != Fault::sm_load) refuse(given.sm_kind, "--sm-load");
  if (fault != Fault::link_load) refuse(given.direction, "--link-load");
  if (fault != Fault::cpu_starve) {
    for (const CLI::Option* option : {given.core, given.cpu_threads, given.cpu_policy,
                                      given.target_rank, given.target_process, given.wait_s})
      refuse(option, "--cpu-starve");
  }
}

void check_cpu_starve(const RawOptions& raw, CpuStarveOptions& cpu) {
  if (raw.target_rank.empty()) throw UsageError("--cpu-starve needs --target-rank R");
  cpu.target_rank = index_option("--target-rank", raw.target_rank, "a rank (0 or more)");
  if (!raw.core.empty()) cpu.core = index_option("--core", raw.core, "a core number (0 or more)");
  cpu.busy_threads = index_option("--cpu-threads", raw.cpu_threads, "a thread count (1 to 1024)");
  if (cpu.busy_threads < 1 || cpu.busy_threads > kMaxBusyThreads)
    throw UsageError(
        fmt::format("--cpu-threads {}: not a thread count (1 to 1024)", quoted(raw.cpu_threads)));
  if (raw.cpu_policy != "fair" && raw.cpu_policy != "nice" && raw.cpu_policy != "realtime")
    throw UsageError(
        fmt::format("--cpu-policy {}: not fair, nice or realtime", quoted(raw.cpu_policy)));
  cpu.realtime = raw.cpu_policy == "realtime";
  cpu.lower_target = raw.cpu_policy == "nice";
  if (raw.target_process.find('/') != std::string::npos)
    throw UsageError(
        fmt::format("--target-process {}: a process name, not a path", quoted(raw.target_process)));
  cpu.target_process = raw.target_process;
  cpu.wait_s = seconds_option("--wait-s", raw.wait_s, true);
}

ContendOptions checked(const RawOptions& raw, const GivenOptions& given) {
  ContendOptions options;
  options.fault = chosen_fault(raw);
  refuse_foreign(given, options.fault);
  if (options.fault == Fault::sm_load) {
    options.sm.gpu = index_option("--sm-load", raw.sm_load, "a GPU index (0 or more)");
    if (raw.sm_kind != "gemm" && raw.sm_kind != "spin")
      throw UsageError(fmt::format("--sm-kind {}: not gemm or spin", quoted(raw.sm_kind)));
    options.sm.kind = raw.sm_kind == "gemm" ? SmKind::gemm : SmKind::spin;
  } else if (options.fault == Fault::link_load) {
    parse_link(raw.link_load, options.link);
    if (raw.direction != "one" && raw.direction != "both")
      throw UsageError(fmt::format("--direction {}: not one or both", quoted(raw.direction)));
    options.link.both_directions = raw.direction == "both";
  } else {
    check_cpu_starve(raw, options.cpu);
  }
  options.duration_s = seconds_option("--duration-s", raw.duration_s, false);
  options.truth_path = raw.truth_path;
  return options;
}

}  // namespace

std::optional<ContendOptions> parse_contend_options(int argc, const char* const* argv,
                                                    std::ostream& out) {
  CLI::App app{kDescription, "collbench_contend"};
  app.footer(kFooter);
  app.get_formatter()->column_width(36);
  RawOptions raw;
  const GivenOptions given = declare(app, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& error) {
    throw UsageError(error.what());
  }
  return checked(raw, given);
}

}  // namespace collbench::contend
