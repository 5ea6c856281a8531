// The CPU reference itself: its gradients match finite differences, averaging per-rank gradients
// equals the gradient of the concatenated batch, and the check's learning rate makes the loss fall.
#include "mlp_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "checks/check_rules.hpp"

namespace collbench::dp::reference {
namespace {

TEST(MlpReference, GradientsMatchFiniteDifferences) {
  Mlp mlp = initial_mlp(3, 8, 7);
  const Batch b = batch(8, 7, 0, 5);
  const Gradients g = gradients(mlp, b);
  EXPECT_NEAR(g.loss, loss(mlp, b), 1e-12);
  const double step = 1e-6;
  int checked = 0;
  for (int layer = 0; layer < 3; ++layer) {
    for (std::size_t i : {std::size_t{0}, std::size_t{13}, std::size_t{63}}) {
      const double saved = mlp.weights[layer][i];
      mlp.weights[layer][i] = saved + step;
      const double up = loss(mlp, b);
      mlp.weights[layer][i] = saved - step;
      const double down = loss(mlp, b);
      mlp.weights[layer][i] = saved;
      const double numeric = (up - down) / (2 * step);
      EXPECT_NEAR(g.weights[layer][i], numeric, 1e-7 + 1e-5 * std::fabs(numeric))
          << "layer " << layer << " w" << i;
      ++checked;
    }
    const double saved = mlp.biases[layer][3];
    mlp.biases[layer][3] = saved + step;
    const double up = loss(mlp, b);
    mlp.biases[layer][3] = saved - step;
    const double down = loss(mlp, b);
    mlp.biases[layer][3] = saved;
    EXPECT_NEAR(g.biases[layer][3], (up - down) / (2 * step), 1e-7);
  }
  EXPECT_EQ(checked, 9);
  // Not vacuous: the gradients are not all zero.
  double largest = 0;
  for (double v : g.weights[0]) largest = std::max(largest, std::fabs(v));
  EXPECT_GT(largest, 1e-4);
}

TEST(MlpReference, AveragedSliceGradientsEqualTheGlobalBatchGradient) {
  const Mlp mlp = initial_mlp(3, 16, 3);
  const int ranks = 4;
  const int per_rank = 6;
  const Gradients global = gradients(mlp, batch(16, 3, 0, ranks * per_rank));
  std::vector<double> average(in_model_order(global.weights, global.biases).size(), 0.0);
  for (int r = 0; r < ranks; ++r) {
    const Gradients local =
        gradients(mlp, batch(16, 3, static_cast<std::uint64_t>(r) * per_rank, per_rank));
    const std::vector<double> flat = in_model_order(local.weights, local.biases);
    for (std::size_t i = 0; i < flat.size(); ++i) average[i] += flat[i] / ranks;
  }
  const std::vector<double> expected = in_model_order(global.weights, global.biases);
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(average[i], expected[i], 1e-12) << i;
}

TEST(MlpReference, TheChecksLearningRateMakesTheLossFall) {
  // The GPU check's small model and optimizer settings, on 1, 2 and 4 ranks' global batches.
  StepConfig like;
  const StepConfig small = small_check_config(like);
  for (int ranks : {1, 2, 4}) {
    Mlp mlp = initial_mlp(small.model.layers, small.model.width, small.model.seed);
    const Batch b = batch(small.model.width, small.model.seed, 0, small.model.batch * ranks);
    Gradients velocity;
    std::vector<double> losses;
    for (int step = 0; step < 10; ++step) {
      const Gradients g = gradients(mlp, b);
      losses.push_back(g.loss);
      sgd_momentum_step(mlp, velocity, g, small.model.learning_rate, small.model.momentum);
    }
    EXPECT_TRUE(loss_decreased(losses))
        << ranks << " ranks: " << losses.front() << " -> " << losses.back();
  }
}

TEST(MlpReference, BfloatRoundingIsNearestEven) {
  EXPECT_EQ(round_to_bfloat16(1.0f), 1.0f);
  EXPECT_EQ(round_to_bfloat16(1.0f + 1.0f / 256), 1.0f);               // tie: to even (1.0)
  EXPECT_EQ(round_to_bfloat16(1.0f + 3.0f / 256), 1.0f + 4.0f / 256);  // tie: to even (1 + 2^-6)
  EXPECT_EQ(round_to_bfloat16(1.0f + 1.5f / 256), 1.0f + 2.0f / 256);  // above the tie: up
  EXPECT_EQ(round_to_bfloat16(-0.3f), -0.30078125f);
}

}  // namespace
}  // namespace collbench::dp::reference
