// The training step's correctness properties on the GPU, run by --check and by the GPU tests:
// replicas stay bitwise identical; the data-parallel gradient equals the 1-GPU gradient over the
// concatenated global batch (within the dtype's tolerance); the loss decreases over steps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check_rules.hpp"
#include "dp_config.hpp"
#include "nccl_communicator.hpp"
#include "parameter_layout.hpp"

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

// Runs `small` on small.ranks GPUs (communicators: one per rank, or empty for one rank) and the
// same model on GPU 0 with the whole global batch, `steps` steps. Throws what the trainer throws.
SmallModelReport run_small_model_check(const StepConfig& small,
                                       std::vector<NcclCommunicator>& communicators, int steps,
                                       double timeout_s);

}  // namespace collbench::dp
