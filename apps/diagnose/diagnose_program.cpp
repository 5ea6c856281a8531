// The diagnosis's phases, in order, and its report.
#include "diagnose_program.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <thread>

#include "core/interrupt.hpp"
#include "launch/process_launch.hpp"
#include "measure/runner.hpp"
#include "probes/bisection.hpp"
#include "probes/group_probe.hpp"
#include "probes/missing_ranks.hpp"
#include "probes/rank_records.hpp"
#include "report/console_summary.hpp"
#include "report/diagnosis_json.hpp"
#include "telemetry/link_peak_table.hpp"
#include "verdict/expectations.hpp"
#include "verdict/rejudge.hpp"

namespace collbench::diagnose {
namespace {

// One rank's identity as it travels between processes.
struct IdentityRecord {
  int rank = 0;
  int local_gpu = 0;
  unsigned pid = 0;
  char host[64] = {};
  char pci_bus_id[32] = {};
};

// The share of its slowest link's send/recv bandwidth a healthy ring collective of
// --collective-bytes reaches: at 256 MiB on 2 GPUs, 0.65 (all_gather) to 0.8 (all_reduce) of
// the pair bandwidth (reports/h200x2/diagnosis/). A collective is slow below slow_ratio times
// the bound times this share, so only a real shortfall falls under it.
constexpr double kCollectiveShareOfSlowestLink = 0.6;

}  // namespace

std::optional<int> DiagnoseProgram::run_without_plan() {
  if (options_.from_path.empty()) return std::nullopt;
  return rejudge(options_.from_path, options_);
}

std::vector<ListedCase> DiagnoseProgram::list(int gpus) {
  // Without a GPU (a listing anywhere), the count is the one the launch will have.
  const std::string ranks = gpus > 0 ? std::to_string(gpus) : "N";
  return {
      {"diagnose/ranks:" + ranks,
       fmt::format("each GPU alone; every pair of the {} ranks both ways; all_reduce, all_gather, "
                   "reduce_scatter, alltoall on all of them, then halves of a slow group",
                   ranks)}};
}

void DiagnoseProgram::start(RunContext& run) {
  run_ = &run;
  ranks_ = run.gpus();
  if (run.reporting) {
    fmt::print("# collbench_diagnose {} | NCCL {} | driver {} | host {} | {} ranks{}\n",
               run.metadata.collbench_version, run.metadata.nccl_version, run.metadata.driver,
               run.metadata.host, ranks_,
               run.group ? " | " + describe_processes(*run.group, run.environment) : "");
    if (!options_.fault.text.empty())
      fmt::print("# injected fault (test): {}\n", options_.fault.text);
    std::fflush(stdout);
  }
  // A bad --link-peak file is refused before any GPU work.
  if (!options_.link_peak_path.empty())
    link_peak_gbps_ = read_link_peak_gbps(options_.link_peak_path);
  throw_if_interrupted();
  set_ = run.group ? std::make_unique<Runner::RankSet>(*run.group, ranks_)
                   : std::make_unique<Runner::RankSet>(ranks_);
}

void DiagnoseProgram::run_plan(RunContext&) {
  diagnose();
}

std::vector<RankIdentity> DiagnoseProgram::identify_ranks() {
  std::vector<IdentityRecord> local(set_->size());
  for (int i = 0; i < set_->size(); ++i) {
    const RankContext& rank = set_->contexts()[i];
    local[i].rank = rank.rank;
    local[i].local_gpu = rank.device;
    local[i].pid = static_cast<unsigned>(getpid());
    copy_text(local[i].host, run_->metadata.host);
    char bus_id[32] = {};
    CB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, rank.device));
    copy_text(local[i].pci_bus_id, bus_id);
  }
  std::vector<RankIdentity> identities;
  run_pids_.clear();
  for (const IdentityRecord& record :
       every_rank(*set_, local, ranks_, run_->group != nullptr, options_.common.timeout_s)) {
    identities.push_back({record.rank, record.host, record.local_gpu, record.pci_bus_id});
    run_pids_.push_back(record.pid);
  }
  return identities;
}

void DiagnoseProgram::diagnose() {
  start_ = std::chrono::steady_clock::now();
  measurements_ = Measurements{};
  measurements_.link_peak_gbps = link_peak_gbps_;
  measurements_.ranks = identify_ranks();
  try {
    probe_each_gpu();
    if (ranks_ >= 2) probe_pairs_and_groups();
    if (options_.rechecks) recheck_flagged();
  } catch (const RanksTimedOut& timeout) {
    name_missing_ranks(timeout.what(), timeout.progress());
  } catch (const CaseTimeout& timeout) {
    // A gather of the figures timed out: some other process never came to it. This process's
    // ranks had done their part.
    std::vector<RankProgress> local;
    for (const RankContext& rank : set_->contexts()) {
      local.push_back(local_rank_progress(rank.rank, rank.device, 0, 0, true));
    }
    name_missing_ranks(timeout.what(), local);
  }
  wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  verdict_ = judge(measurements_, thresholds());
}

void DiagnoseProgram::probe_each_gpu() {
  measurements_.gpus = every_rank(*set_, probe_local_gpus(*set_, gpu_settings()), ranks_,
                                  run_->group != nullptr, options_.common.timeout_s);
}

void DiagnoseProgram::probe_pairs_and_groups() {
  measurements_.pairs = probe_pairs(*set_, ranks_, pair_settings());
  probe_collectives();
  measurements_.arrivals = probe_arrivals(*set_, ranks_, arrival_settings());
  narrow_down_slow_groups();
}

void DiagnoseProgram::recheck_flagged() {
  const RecheckRequest request = to_recheck(measurements_, thresholds());
  if (request.empty()) return;
  const bool multi_process = run_->group != nullptr;
  if (!request.gpus.empty()) {
    std::vector<bool> probed(set_->size());
    for (int local = 0; local < set_->size(); ++local) {
      const int rank = set_->contexts()[local].rank;
      probed[local] =
          std::find(request.gpus.begin(), request.gpus.end(), rank) != request.gpus.end();
    }
    GpuProbeSettings settings = gpu_settings();
    settings.window_ms *= 2;  // alone now, and for longer
    for (const GpuFigures& gpu : every_rank(*set_, probe_local_gpus(*set_, settings, probed),
                                            ranks_, multi_process, options_.common.timeout_s)) {
      if (gpu.rank >= 0) measurements_.rechecks.gpus.push_back(gpu);
    }
  }
  if (!request.pairs.empty()) {
    measurements_.rechecks.pairs = probe_pairs_alone(*set_, ranks_, request.pairs, pair_settings());
  }
  if (request.arrivals && ranks_ >= 2) {
    ArrivalProbeSettings settings = arrival_settings();
    settings.iterations *= 2;
    measurements_.rechecks.arrivals = probe_arrivals(*set_, ranks_, settings);
  }
}

GpuProbeSettings DiagnoseProgram::gpu_settings() const {
  GpuProbeSettings settings;
  settings.bytes = options_.copy_bytes;
  settings.window_ms = options_.copy_window_ms;
  settings.timeout_s = options_.common.timeout_s;
  settings.run_pids = run_pids_;
  settings.faults = probe_faults();
  return settings;
}

PairProbeSettings DiagnoseProgram::pair_settings() const {
  PairProbeSettings settings;
  settings.bandwidth_bytes = options_.pair_bytes;
  settings.latency_bytes = options_.latency_bytes;
  settings.bandwidth_iterations = options_.iterations;
  settings.latency_round_trips = options_.latency_round_trips;
  settings.timeout_s = options_.common.timeout_s;
  settings.multi_process = run_->group != nullptr;
  settings.faults = probe_faults();
  return settings;
}

ArrivalProbeSettings DiagnoseProgram::arrival_settings() const {
  ArrivalProbeSettings settings;
  settings.bytes = options_.arrival_bytes;
  settings.iterations = options_.arrival_iterations;
  settings.timeout_s = options_.common.timeout_s;
  settings.multi_process = run_->group != nullptr;
  settings.faults = probe_faults();
  return settings;
}

void DiagnoseProgram::name_missing_ranks(const std::string& what,
                                         std::vector<RankProgress> reported) {
  set_->abort_all();
  // Under mpirun every process times out on its own and they swap what they saw over MPI, not
  // over the communicator that hung; a process that does not answer is absent.
  bool everyone_asked = !run_->group;
  if (run_->group && run_->group->mode() == LaunchMode::mpi && !reported.empty()) {
    if (auto all = exchange_progress(reported.front(), ranks_)) {
      reported = *all;
      everyone_asked = true;
    }
  }
  for (MissingRank& missing : missing_ranks(what, reported, ranks_, everyone_asked)) {
    measurements_.missing.push_back(std::move(missing));
  }
  if (run_->group) run_->group->abort();
}

void DiagnoseProgram::probe_collectives() {
  GroupProbeSettings settings;
  settings.bytes = options_.collective_bytes;
  settings.iterations = options_.iterations;
  settings.timeout_s = options_.common.timeout_s;
  settings.multi_process = run_->group != nullptr;
  settings.faults = probe_faults();
  std::vector<int> everyone(ranks_);
  for (int rank = 0; rank < ranks_; ++rank) everyone[rank] = rank;
  for (GroupFigures& figures : probe_group(*set_, ranks_, everyone, settings)) {
    figures.expected_busbw_gbps =
        ring_busbw_bound_gbps(measurements_, figures.ranks, kCollectiveShareOfSlowestLink);
    measurements_.groups.push_back(figures);
  }
}

void DiagnoseProgram::narrow_down_slow_groups() {
  // Halves need at least 2 ranks each.
  if (ranks_ < 4) return;
  bool slow = false;
  for (const GroupFigures& figures : measurements_.groups)
    slow = slow || group_is_slow(figures, thresholds());
  if (!slow) return;
  GroupProbeSettings settings;
  settings.ops = {"all_reduce"};
  settings.faults = probe_faults();
  settings.bytes = options_.collective_bytes;
  settings.iterations = options_.iterations;
  settings.timeout_s = options_.common.timeout_s;
  settings.multi_process = run_->group != nullptr;
  // Halves follow nodes: ranks ordered by host, then rank.
  std::vector<int> ordered(ranks_);
  for (int rank = 0; rank < ranks_; ++rank) ordered[rank] = rank;
  std::stable_sort(ordered.begin(), ordered.end(), [this](int a, int b) {
    return measurements_.ranks[a].host < measurements_.ranks[b].host;
  });
  const auto still_slow = [&](const std::vector<int>& group) {
    std::vector<int> members = group;
    std::sort(members.begin(), members.end());
    GroupFigures figures = probe_group(*set_, ranks_, members, settings).front();
    figures.expected_busbw_gbps =
        ring_busbw_bound_gbps(measurements_, figures.ranks, kCollectiveShareOfSlowestLink);
    measurements_.groups.push_back(figures);
    return group_is_slow(figures, thresholds());
  };
  narrow_down(ordered, still_slow);
}

int DiagnoseProgram::finish(RunContext& run) {
  if (!verdict_) return kExitFailed;  // the diagnosis did not run (a signal)
  if (run.reporting) {
    fmt::print("{}", console_summary(measurements_, *verdict_));
    if (!options_.json_path.empty()) {
      std::ofstream file(options_.json_path);
      file << diagnosis_json(measurements_, *verdict_, options_.fault.text, wall_s_).dump(2)
           << "\n";
      if (!file) {
        fmt::print(stderr, "collbench_diagnose: error: cannot write --json '{}'\n",
                   options_.json_path);
        return kExitFailed;
      }
    }
    fmt::print("# wall time of the diagnosis {:.1f} s\n", wall_s_);
    std::fflush(stdout);
  }
  return verdict_->exit_status();
}

ProbeFaults DiagnoseProgram::probe_faults() const {
  ProbeFaults faults;
  const InjectedFault& fault = options_.fault;
  auto is_faulty = [this, rank = fault.rank](int local) {
    return set_->contexts()[local].rank == rank;
  };
  switch (fault.kind) {
    case InjectedFault::Kind::slow_gpu:
      for (int local = 0; local < set_->size(); ++local) {
        if (is_faulty(local)) faults.slow_local = local;
      }
      faults.slow_share = fault.amount;
      break;
    case InjectedFault::Kind::late_rank:
      faults.before_launch = [is_faulty, delay_ms = fault.amount](int local) {
        if (is_faulty(local))
          std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms));
      };
      break;
    case InjectedFault::Kind::missing_rank:
      faults.skips = is_faulty;
      break;
    case InjectedFault::Kind::none:
      break;
  }
  return faults;
}

Thresholds DiagnoseProgram::thresholds() const {
  return options_.thresholds;
}

void DiagnoseProgram::abort() noexcept {
  if (set_) set_->abort_all();
}

}  // namespace collbench::diagnose
