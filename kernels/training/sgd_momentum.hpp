// Host API of the SGD-with-momentum update (PyTorch's torch.optim.SGD semantics, no dampening,
// no weight decay), optionally on float32 master weights, with the momentum in float32 or in the
// weights' own type.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "training_types.hpp"

namespace collbench::kernels::training {

struct SgdStep {
  float learning_rate;
  float momentum;
  float gradient_scale;  // multiplies the gradient first: 1, or 1/n after a sum all-reduce
};

// The parameters one update writes, from element 0 of its range: the model copy `weights`
// (`type`), the float32 `master` weights or null, and the momentum `velocity` (`velocity_type`).
struct SgdTarget {
  ElementType type;
  void* weights;
  float* master;
  void* velocity;
  ElementType velocity_type;
  SgdStep step;
};

// For i in [0, count): v = momentum * v + gradient_scale * g;  w = w - learning_rate * v,
// computed in float32, on `target`'s elements i. w is read from and written to `master` (float32)
// when it is not null, and the model copy `weights` is written rounded to `type`; with `master`
// null, w is read from `weights` itself. `velocity` holds `velocity_type` elements: float32, or
// `type` (then v is rounded to it after each step, as PyTorch keeps a bfloat16 parameter's
// momentum); any other type throws std::invalid_argument. `gradients` holds `type` elements.
// Element-wise and deterministic: the same inputs give the same bits on every GPU.
void launch_sgd_momentum(const SgdTarget& target, const void* gradients, std::uint64_t count,
                         cudaStream_t stream);

}  // namespace collbench::kernels::training
