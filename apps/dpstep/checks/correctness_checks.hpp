// The training step's correctness properties on the GPU, run by --check and by the GPU tests:
// replicas stay bitwise identical; the data-parallel gradient equals the 1-GPU gradient over the
// concatenated global batch (within the dtype's tolerance); the loss decreases over steps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checks/check_rules.hpp"
#include "dp_config.hpp"
#include "model/parameter_layout.hpp"
#include "runtime/nccl_communicator.hpp"

namespace collbench::dp {

struct SmallModelReport {
  TensorComparison gradient;  // data-parallel vs 1 GPU over the global batch
  TensorComparison weights;   // rank 0's weights after one step, likewise
  std::vector<double> losses;
  std::uint64_t differing_weights = 0;  // after all steps, vs rank 0
  bool ok() const {
    return gradient.ok && weights.ok && loss_decreased(losses) && differing_weights == 0;
  }
  std::string summary() const;
};

// Runs `small` on small.ranks GPUs, `steps` steps, and the same model for one step on rank 0's GPU
// with the whole global batch. `communicators` as for DataParallelTrainer: one per rank this
// process drives, or none for one rank, which then runs on `device`. With one process per GPU it
// is collective over the processes holding the ranks: rank 0's process compares with the 1-GPU
// run, and every process gets the same verdicts (ok()); the figures (errors, worst parameter) are
// rank 0's. Throws what the trainer throws.
SmallModelReport run_small_model_check(const StepConfig& small,
                                       std::vector<NcclCommunicator>& communicators, int steps,
                                       double timeout_s, int device = 0);

}  // namespace collbench::dp
