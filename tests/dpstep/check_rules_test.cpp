// The pass/fail rules of the correctness checks: they must fail on the errors they exist for.
#include "checks/check_rules.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace collbench::dp {
namespace {

std::vector<double> ramp(std::size_t n, double scale) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * (static_cast<double>(i % 17) - 8.0);
  return v;
}

TEST(CheckRules, EqualVectorsPassAndEachParameterIsJudgedOnItsOwnScale) {
  const ParameterLayout layout(2, 8, 4, 0, 1);
  std::vector<double> expected = ramp(layout.parameter_count(), 1.0);
  // Scale layer 1's bias down by 1e6: an error of 1e-5 there is large for it, tiny globally.
  const std::size_t bias1 = 8 * 8 + 8 + 8 * 8;
  for (std::size_t i = bias1; i < bias1 + 8; ++i) expected[i] *= 1e-6;
  EXPECT_TRUE(compare_per_parameter(layout, expected, expected, 1e-4).ok);
  std::vector<double> got = expected;
  got[bias1 + 3] += 1e-5;
  const TensorComparison c = compare_per_parameter(layout, got, expected, 1e-4);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.worst_parameter, "layer 1 bias");
  EXPECT_NEAR(c.worst_relative_error, 1e-5 / 8e-6, 1e-9);
}

TEST(CheckRules, NanSizeMismatchAndNonzeroVersusZeroFail) {
  const ParameterLayout layout(1, 8, 4, 0, 1);
  const std::vector<double> expected = ramp(layout.parameter_count(), 1.0);
  std::vector<double> got = expected;
  got[5] = NAN;
  EXPECT_FALSE(compare_per_parameter(layout, got, expected, 1e-4).ok);
  got.pop_back();
  EXPECT_FALSE(compare_per_parameter(layout, got, expected, 1e-4).ok);
  std::vector<double> zeros(layout.parameter_count(), 0.0);
  std::vector<double> almost = zeros;
  almost[70] = 1e-3;  // in the all-zero bias
  EXPECT_TRUE(compare_per_parameter(layout, zeros, zeros, 1e-4).ok);
  EXPECT_FALSE(compare_per_parameter(layout, almost, zeros, 1e-4).ok);
}

TEST(CheckRules, LossMustFallFromTheFirstStepAndByAPercentOverall) {
  EXPECT_TRUE(loss_decreased({1.0, 0.99, 0.97, 0.95}));
  EXPECT_FALSE(loss_decreased({1.0, 1.01, 0.9}));     // rose at first
  EXPECT_FALSE(loss_decreased({1.0, 0.999, 0.995}));  // less than 1 %
  EXPECT_FALSE(loss_decreased({1.0}));                // nothing to compare
  EXPECT_FALSE(loss_decreased({1.0, 0.5, NAN}));      // diverged
}

TEST(CheckRules, SmallConfigKeepsSchemeAlgorithmRanksAndDtype) {
  StepConfig big;
  big.scheme = SyncScheme::sharded;
  big.algo = "ring";
  big.ranks = 4;
  big.model.dtype = DataType::float32;
  const StepConfig small = small_check_config(big);
  EXPECT_EQ(small.scheme, SyncScheme::sharded);
  EXPECT_EQ(small.algo, "ring");
  EXPECT_EQ(small.ranks, 4);
  EXPECT_EQ(small.model.dtype, DataType::float32);
  EXPECT_EQ(small.model.layers, 3);
  EXPECT_EQ(small.model.width, 64);
  // Several buckets, so bucketing is exercised even on the small model.
  const ParameterLayout layout(small.model.layers, small.model.width, 4, bucket_cap_bytes(small),
                               small.ranks);
  EXPECT_GE(layout.buckets().size(), 3u);
  EXPECT_LT(gradient_tolerance(DataType::float32), gradient_tolerance(DataType::bfloat16));
}

}  // namespace
}  // namespace collbench::dp
