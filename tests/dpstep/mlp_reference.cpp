// The CPU reference MLP (see mlp_reference.hpp).
#include "mlp_reference.hpp"

#include <cstring>

#include "synthetic_values.cuh"

namespace collbench::dp::reference {
namespace {

namespace tk = kernels::training;

double stored(float value, bool bfloat16) {
  return bfloat16 ? round_to_bfloat16(value) : value;
}

struct Forward {
  std::vector<std::vector<double>> inputs;  // X_0 .. X_L
  std::vector<std::vector<double>> pre;     // Z_0 .. Z_{L-1}
};

Forward forward(const Mlp& mlp, const Batch& batch) {
  const int h = mlp.width;
  Forward f;
  f.inputs.push_back(batch.inputs);
  for (int l = 0; l < mlp.layers; ++l) {
    const std::vector<double>& x = f.inputs.back();
    std::vector<double> z(static_cast<std::size_t>(batch.samples) * h);
    for (int s = 0; s < batch.samples; ++s) {
      for (int o = 0; o < h; ++o) {
        double sum = mlp.biases[l][o];
        for (int i = 0; i < h; ++i) sum += x[s * h + i] * mlp.weights[l][o * h + i];
        z[s * h + o] = sum;
      }
    }
    std::vector<double> y = z;
    if (l + 1 < mlp.layers) {
      for (double& v : y) v = v > 0 ? v : 0;
    }
    f.pre.push_back(std::move(z));
    f.inputs.push_back(std::move(y));
  }
  return f;
}

}  // namespace

float round_to_bfloat16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  bits = (bits + rounding) & 0xFFFF0000u;
  float rounded;
  std::memcpy(&rounded, &bits, 4);
  return rounded;
}

Mlp initial_mlp(int layers, int width, std::uint64_t seed, bool round) {
  Mlp mlp;
  mlp.layers = layers;
  mlp.width = width;
  for (int l = 0; l < layers; ++l) {
    std::vector<double> w(static_cast<std::size_t>(width) * width);
    std::vector<double> b(width);
    for (std::size_t i = 0; i < w.size(); ++i) {
      w[i] = stored(tk::synthetic_value(seed, tk::stream_key(tk::ValueStream::weight, l), i,
                                        tk::weight_bound(width)),
                    round);
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
      b[i] = stored(tk::synthetic_value(seed, tk::stream_key(tk::ValueStream::bias, l), i,
                                        tk::bias_bound(width)),
                    round);
    }
    mlp.weights.push_back(std::move(w));
    mlp.biases.push_back(std::move(b));
  }
  return mlp;
}

Batch batch(int width, std::uint64_t seed, std::uint64_t first_sample, int samples, bool round) {
  Batch b;
  b.samples = samples;
  const std::uint64_t first = first_sample * static_cast<std::uint64_t>(width);
  for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(samples) * width; ++i) {
    b.inputs.push_back(stored(
        tk::synthetic_value(seed, tk::stream_key(tk::ValueStream::input, 0), first + i, 1.0f),
        round));
    b.targets.push_back(stored(
        tk::synthetic_value(seed, tk::stream_key(tk::ValueStream::target, 0), first + i, 1.0f),
        round));
  }
  return b;
}

double loss(const Mlp& mlp, const Batch& batch) {
  const Forward f = forward(mlp, batch);
  double sum = 0;
  for (std::size_t i = 0; i < batch.targets.size(); ++i) {
    const double d = f.inputs.back()[i] - batch.targets[i];
    sum += d * d;
  }
  return sum / static_cast<double>(batch.targets.size());
}

Gradients gradients(const Mlp& mlp, const Batch& batch) {
  const int h = mlp.width;
  const int n = batch.samples;
  const Forward f = forward(mlp, batch);
  Gradients g;
  g.weights.resize(mlp.layers);
  g.biases.resize(mlp.layers);
  const double count = static_cast<double>(batch.targets.size());
  std::vector<double> dz(batch.targets.size());
  for (std::size_t i = 0; i < dz.size(); ++i) {
    const double d = f.inputs.back()[i] - batch.targets[i];
    g.loss += d * d / count;
    dz[i] = 2.0 * d / count;
  }
  for (int l = mlp.layers - 1; l >= 0; --l) {
    const std::vector<double>& x = f.inputs[l];
    std::vector<double>& dw = g.weights[l];
    std::vector<double>& db = g.biases[l];
    dw.assign(static_cast<std::size_t>(h) * h, 0.0);
    db.assign(h, 0.0);
    for (int s = 0; s < n; ++s) {
      for (int o = 0; o < h; ++o) {
        const double d = dz[s * h + o];
        db[o] += d;
        for (int i = 0; i < h; ++i) dw[o * h + i] += d * x[s * h + i];
      }
    }
    if (l == 0) break;
    std::vector<double> dx(static_cast<std::size_t>(n) * h, 0.0);
    for (int s = 0; s < n; ++s) {
      for (int i = 0; i < h; ++i) {
        double sum = 0;
        for (int o = 0; o < h; ++o) sum += dz[s * h + o] * mlp.weights[l][o * h + i];
        // Layer l-1 is a ReLU layer: its gradient passes where its pre-activation was positive.
        dx[s * h + i] = f.pre[l - 1][s * h + i] > 0 ? sum : 0.0;
      }
    }
    dz = std::move(dx);
  }
  return g;
}

void sgd_momentum_step(Mlp& mlp, Gradients& velocity, const Gradients& gradient,
                       double learning_rate, double momentum) {
  if (velocity.weights.empty()) {
    velocity.weights.assign(mlp.layers, {});
    velocity.biases.assign(mlp.layers, {});
    for (int l = 0; l < mlp.layers; ++l) {
      velocity.weights[l].assign(mlp.weights[l].size(), 0.0);
      velocity.biases[l].assign(mlp.biases[l].size(), 0.0);
    }
  }
  auto step = [&](std::vector<double>& w, std::vector<double>& v, const std::vector<double>& g) {
    for (std::size_t i = 0; i < w.size(); ++i) {
      v[i] = momentum * v[i] + g[i];
      w[i] -= learning_rate * v[i];
    }
  };
  for (int l = 0; l < mlp.layers; ++l) {
    step(mlp.weights[l], velocity.weights[l], gradient.weights[l]);
    step(mlp.biases[l], velocity.biases[l], gradient.biases[l]);
  }
}

std::vector<double> in_model_order(const std::vector<std::vector<double>>& weights,
                                   const std::vector<std::vector<double>>& biases) {
  std::vector<double> values;
  for (std::size_t l = 0; l < weights.size(); ++l) {
    values.insert(values.end(), weights[l].begin(), weights[l].end());
    values.insert(values.end(), biases[l].begin(), biases[l].end());
  }
  return values;
}

}  // namespace collbench::dp::reference
