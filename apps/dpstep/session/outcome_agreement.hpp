// With one process per GPU, every process ends each configuration with the same outcome (the
// rules are in process_plan.hpp): the worst status any process had, with the reason the lowest
// rank that had it gave. Every process then reports, counts and recovers from a failure the same
// way, and drops the same communicators. Agreed over a communicator of all processes.
#pragma once

#include <optional>

#include "launch/process_group.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"
#include "session/dp_report.hpp"

namespace collbench::dp {

class OutcomeAgreement {
 public:
  // Collective over every process of `group` (a split of the world that keeps everyone).
  explicit OutcomeAgreement(ProcessGroup& group);

  // Collective: every process calls it once per configuration, in plan order, whether it took
  // part in the configuration or not (then with an ok outcome of its own). Waits up to
  // `timeout_s` for the others; when they cannot agree the run cannot go on: aborts the
  // communicator and throws (CaseTimeout, GpuError, Interrupted).
  StepOutcome agree(const StepOutcome& mine, double timeout_s);
  void abort() noexcept;

 private:
  int rank_;
  int size_;
  int device_;
  std::optional<NcclCommunicator> everyone_;
  Stream stream_;
};

}  // namespace collbench::dp
