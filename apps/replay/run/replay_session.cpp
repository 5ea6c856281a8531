// The replay's phases.
#include "run/replay_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "measure/sample_tables.hpp"
#include "plan/traced_op_times.hpp"
#include "run/replay_communicators.hpp"
#include "runtime/completion_wait.hpp"
#include "runtime/host_collectives.hpp"
#include "runtime/nccl_settings.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench::replay {
namespace {

const ReplayHooks kNoHooks;

}  // namespace

ReplaySession::ReplaySession(Runner::RankSet& set, const WorkloadOps& workload,
                             const ReplaySettings& settings, bool multi_process,
                             const KernelTrace* trace, const ReplayHooks* hooks)
    : nccl_environment_(nccl_environment(settings.combination.communicators)),
      set_(set),
      workload_(workload),
      settings_(settings),
      multi_process_(multi_process),
      hooks_(hooks ? *hooks : kNoHooks),
      trace_(trace),
      traffic_(alltoallv_traffic(workload)) {}

ReplaySession::~ReplaySession() {
  // The graphs launch the hand-built instances' kernels on their buffers: gone first.
  for (const auto& replayer : replayers_) replayer->release_graphs();
  all_reduces_.reset();
}

void ReplaySession::prepare() {
  const ReplayCombination& combination = settings_.combination;
  const std::optional<ncclConfig_t> config = nccl_config(combination.communicators);
  std::vector<std::vector<NcclCommunicator>> communicators = split_workload_communicators(
      set_.agreement_contexts(), workload_.communicators, config ? &*config : nullptr);
  if (trace_ && settings_.iters >= kCapturedIteration) {
    throw UsageError(fmt::format("-n {}: the kernel trace tags at most {} timed iterations",
                                 settings_.iters, kCapturedIteration - 1));
  }
  // Every process traces, or events time the ops everywhere.
  if (multi_process_ && !all_ranks_agree(set_.agreement_contexts(), trace_ != nullptr,
                                         [this] { wait("agreeing on the kernel trace", false); }))
    trace_ = nullptr;
  for (int local = 0; local < set_.size(); ++local) {
    replayers_.push_back(std::make_unique<RankReplayer>(
        workload_, traffic_, set_.agreement_contexts()[static_cast<std::size_t>(local)],
        std::move(communicators[static_cast<std::size_t>(local)]), settings_.gaps,
        combination.registration, hooks_, trace_));
  }
  {
    auto range = fixed_range<nvtx_names::allocate>();
    set_.workers().run(
        [this](int local) { replayers_[static_cast<std::size_t>(local)]->prepare(); });
  }
  wait("preparing the buffers and inputs");
  if (combination.handbuilt_all_reduce()) {
    all_reduces_ = std::make_unique<HandbuiltAllReduces>(
        combination.all_reduce, combination.registration, workload_, replayers_, [this](bool ok) {
          return all_ranks_agree(set_.agreement_contexts(), ok,
                                 [this] { wait("agreeing on the combination", false); });
        });
  }
  connect();
  // A kernel's first launch may load its module, which waits for an idle GPU: never behind a
  // held stream, so the warm-up runs ungated and must come first.
  gated_ = settings_.warmup > 0 && set_.gate().enabled();
  if (settings_.warmup == 0) ungated_reason_ = "no warm-up iteration (-w 0)";
  if (!set_.gate().enabled()) ungated_reason_ = "the processes share no memory for a start gate";
}

void ReplaySession::warm_up() {
  auto range =
      fixed_range<nvtx_names::warmup>(0x808080, static_cast<std::uint64_t>(settings_.warmup));
  for (int i = 0; i < settings_.warmup; ++i) {
    throw_if_interrupted();
    run_iteration({IterationIssue::Kind::warm_up, i});
  }
  if (!settings_.combination.graph) return;
  // Captured once every op has run (modules loaded, NCCL connected), then launched once untimed:
  // a graph's first launch uploads it.
  set_.workers().run([this](int local) {
    replayers_[static_cast<std::size_t>(local)]->capture_iteration(settings_.check);
  });
  for (const bool plain : {false, true}) {
    if (trace_ && !plain) continue;  // traced, the timed iterations launch the plain graph alone
    throw_if_interrupted();
    run_iteration({IterationIssue::Kind::warm_up, settings_.warmup, plain});
  }
}

void ReplaySession::time() {
  auto range =
      fixed_range<nvtx_names::timed>(0x808080, 2 * static_cast<std::uint64_t>(settings_.iters));
  // Each timed iteration twice, in turn: traced (or with the events that time its ops), and
  // plain. The trace records only its own iterations (it costs every launch host time), each
  // taken before the next iteration runs.
  for (int i = 0; i < settings_.iters; ++i) {
    for (const bool plain : {false, true}) {
      throw_if_interrupted();
      const bool traced = trace_ && !plain;
      {
        std::optional<KernelTrace::Recording> recording;
        if (traced) recording.emplace(*trace_);
        run_iteration({IterationIssue::Kind::timed, i, plain, traced});
      }
      for (const auto& replayer : replayers_) replayer->record_timed_iteration(plain);
      if (!traced) continue;
      const std::vector<TracedActivity> activity = trace_->take();
      for (const auto& replayer : replayers_) replayer->record_traced_iteration(activity, i);
    }
  }
}

void ReplaySession::check() {
  if (!settings_.check) return;
  auto range = fixed_range<nvtx_names::check>();
  throw_if_interrupted();
  run_iteration({IterationIssue::Kind::checked, 0});
  for (const auto& replayer : replayers_) replayer->record_mismatches();
}

std::vector<RankResults> ReplaySession::gather_results() {
  // Mappings of the peers' buffers closed before the gather, the barrier after which they may go.
  if (all_reduces_) all_reduces_->release();
  std::size_t most_ops = 0;
  for (const std::vector<WorkloadOp>& ops : workload_.by_rank)
    most_ops = std::max(most_ops, ops.size());
  const auto iterations = static_cast<std::size_t>(settings_.iters);
  RankTable local;
  for (const auto& replayer : replayers_)
    local.push_back(pack_results(replayer->results(), most_ops, iterations));
  const std::vector<RankTable> by_rank =
      gather_by_rank(set_, workload_.world_size(), packed_results_size(most_ops, iterations),
                     {local}, multi_process_, [this] { wait("gathering every rank's results"); });
  std::vector<RankResults> results;
  for (int rank = 0; rank < workload_.world_size(); ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    results.push_back(
        unpack_results(by_rank[0][r], workload_.by_rank[r].size(), most_ops, iterations));
  }
  return results;
}

// Communicators in id order on every rank of every process, each done before the next
// (RankReplayer::issue_connection).
void ReplaySession::connect() {
  for (int id = 0; id < workload_.communicators.count(); ++id) {
    throw_if_interrupted();
    set_.workers().run(
        [&](int local) { replayers_[static_cast<std::size_t>(local)]->issue_connection(id); });
    wait(fmt::format("connecting communicator {} (its ops alone)", id), false);
  }
}

void ReplaySession::run_iteration(IterationIssue issue) {
  if (issue.kind == IterationIssue::Kind::timed && gated_) {
    issue.gate = &set_.gate();
    issue.ticket = set_.gate().next_round(set_.ranks_on_host());
    issue.gate_timeout_s = settings_.timeout_s + kGateGraceS;
  }
  set_.workers().run(
      [&](int local) { replayers_[static_cast<std::size_t>(local)]->issue_iteration(issue); });
  // A plain or traced iteration records no end events to name an unfinished op by.
  wait(describe_iteration(issue), !issue.plain && !issue.traced);
  if (issue.gate) set_.gate().check();
}

void ReplaySession::wait(const std::string& what, bool names_ops) {
  // The ranks' lead streams (their replayers' streams join them), replayers made or not.
  std::vector<CompletionTarget> targets;
  for (const RankContext& lead : set_.agreement_contexts())
    targets.push_back({lead.device, lead.rank, lead.stream});
  try {
    wait_for_completion(targets, WaitDeadline::after(settings_.timeout_s), what,
                        [this] { check_async_errors(); });
  } catch (const CompletionTimeout& timeout) {
    std::string reason = timeout.what();
    for (std::size_t local = 0; local < replayers_.size(); ++local) {
      if (timeout.done()[local] || !names_ops) continue;
      const std::string unfinished = replayers_[local]->unfinished_op();
      if (!unfinished.empty()) reason += "; " + unfinished;
    }
    // At once: nothing may wait on a peer that will never come (the others time out alike).
    abort_all();
    throw CaseTimeout(reason);
  }
}

void ReplaySession::check_async_errors() const {
  if (all_reduces_) all_reduces_->check_health();
  for (const auto& replayer : replayers_) replayer->check_async_errors();
  set_.check_async_errors();
}

void ReplaySession::abort_all() noexcept {
  if (all_reduces_) all_reduces_->request_abort();  // their kernels stop waiting on peers first
  for (const auto& replayer : replayers_) replayer->abort();
  set_.abort_all();
}

}  // namespace collbench::replay
