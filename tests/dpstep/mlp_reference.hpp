// A plain CPU reference of the benchmark's MLP in double precision: the same synthetic initial
// weights and data (synthetic_values.cuh), forward, MSE loss, backward and SGD with momentum.
// The GPU tests compare the trainer against it; the CPU tests check it by finite differences.
#pragma once

#include <cstdint>
#include <vector>

namespace collbench::dp::reference {

struct Mlp {
  int layers = 0;
  int width = 0;
  std::vector<std::vector<double>> weights;  // per layer, row-major [out][in]
  std::vector<std::vector<double>> biases;
};

struct Batch {
  int samples = 0;
  std::vector<double> inputs;   // [samples][width]
  std::vector<double> targets;  // [samples][width]
};

struct Gradients {
  double loss = 0;  // mean over samples x width of (y - t)^2
  std::vector<std::vector<double>> weights;
  std::vector<std::vector<double>> biases;
};

// `round_to_bfloat16`: the values the GPU holds when the model is bfloat16.
Mlp initial_mlp(int layers, int width, std::uint64_t seed, bool round_to_bfloat16 = false);
// Global samples [first_sample, first_sample + samples) of the synthetic data set.
Batch batch(int width, std::uint64_t seed, std::uint64_t first_sample, int samples,
            bool round_to_bfloat16 = false);

double loss(const Mlp& mlp, const Batch& batch);
Gradients gradients(const Mlp& mlp, const Batch& batch);

// torch.optim.SGD with momentum (no dampening): v = mu v + g; w -= lr v. `velocity` starts empty.
void sgd_momentum_step(Mlp& mlp, Gradients& velocity, const Gradients& gradient,
                       double learning_rate, double momentum);

// Model order, as DataParallelTrainer returns it: layer 0 weight, layer 0 bias, layer 1 weight ...
std::vector<double> in_model_order(const std::vector<std::vector<double>>& weights,
                                   const std::vector<std::vector<double>>& biases);

// Round-to-nearest-even float -> bfloat16 -> float, as __float2bfloat16_rn does.
float round_to_bfloat16(float value);

}  // namespace collbench::dp::reference
