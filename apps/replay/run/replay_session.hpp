// A replay of a checked workload on this process's ranks under one combination of communicator
// settings (its NCCL_ALGO and NCCL_PROTO set while the session lives, as NCCL reads them when a
// communicator is made and again when it launches; its ncclConfig_t in every split; its buffer
// registration; its all-reduce implementation), as its phases: prepare (the workload's
// communicators split from the world, then each rank's streams, buffers and inputs, the hand-built
// all-reduce instances if the combination names one, then each communicator's ops alone, one
// communicator at a time, so that NCCL connects them), warm up,
// time (each iteration of the whole window start-gated on every rank of a host, then waited for;
// each twice: once for the ops' times, traced or with per-step events, and once plain;
// under --issue graph, each rank's iteration captured after the warm-up and launched as one graph),
// check (one more iteration with checked values), and gather every rank's results.
// Each wait is bounded by the deadline: at a timeout every communicator is aborted and the error
// names, per rank, the op that had not finished.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "measure/rank_set.hpp"
#include "plan/rank_results.hpp"
#include "run/rank_replayer.hpp"
#include "run/replay_all_reduces.hpp"
#include "run/replay_settings.hpp"
#include "runtime/scoped_environment.hpp"

namespace collbench::replay {

class ReplaySession {
 public:
  // `set`: the world's ranks this process drives (all of them, or its one under a launcher).
  // `trace`: this process's kernel trace, which times the ops where every process has one; null:
  // events time them. `workload`, `set`, `trace` and `hooks` (none: no faults) outlive the
  // session.
  ReplaySession(Runner::RankSet& set, const WorkloadOps& workload, const ReplaySettings& settings,
                bool multi_process, const KernelTrace* trace, const ReplayHooks* hooks = nullptr);
  ~ReplaySession();
  ReplaySession(const ReplaySession&) = delete;
  ReplaySession& operator=(const ReplaySession&) = delete;

  // Throws UnsupportedCombination (every process alike) when the combination cannot run here.
  void prepare();
  void warm_up();
  void time();
  void check();  // nothing without settings.check
  // Every rank's results, by global rank, from every process (collective).
  std::vector<RankResults> gather_results();

  // Whether the timed iterations start together on every rank of a host; why not otherwise.
  bool gated() const { return gated_; }
  const std::string& ungated_reason() const { return ungated_reason_; }
  // After prepare(): whether the ops' kernels are traced (else events time them).
  bool traces_kernels() const { return trace_ != nullptr; }
  // After prepare(): what of the combination stays on NCCL that a user might expect elsewhere
  // (HandbuiltAllReduces::kept_note), or "".
  std::string kept_note() const { return all_reduces_ ? all_reduces_->kept_note() : ""; }
  // The hand-built all-reduce instances made (one per all_reduce it takes), 0 without --algo.
  std::size_t handbuilt_instances() const {
    return all_reduces_ ? all_reduces_->instance_count() : 0;
  }
  void abort_all() noexcept;

 private:
  void connect();
  void run_iteration(IterationIssue issue);
  // Waits for every local rank's lead stream (its streams join it), watching NCCL's errors,
  // signals and the deadline; at the deadline aborts and throws CaseTimeout, naming each rank's
  // first unfinished op when `names_ops` (an iteration's events tell it).
  void wait(const std::string& what, bool names_ops = true);
  void check_async_errors() const;

  // First: restored last, once every communicator of the session is gone.
  const ScopedEnvironment nccl_environment_;
  Runner::RankSet& set_;
  const WorkloadOps& workload_;
  const ReplaySettings settings_;
  const bool multi_process_;
  const ReplayHooks& hooks_;
  const KernelTrace* trace_;
  const TrafficByInstance traffic_;
  std::vector<std::unique_ptr<RankReplayer>> replayers_;  // by local rank
  // --algo: the all_reduce ops' hand-built instances (after the replayers: gone first).
  std::unique_ptr<HandbuiltAllReduces> all_reduces_;
  bool gated_ = false;
  std::string ungated_reason_;
};

}  // namespace collbench::replay
