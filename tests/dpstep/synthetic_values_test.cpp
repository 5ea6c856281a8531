// The synthetic value generator shared by the GPU initialisation and the CPU reference.
#include "synthetic_values.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace collbench::kernels::training {
namespace {

TEST(SyntheticValues, UniformInRangeOnTheExactGridAndCentred) {
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const float u =
        uniform_value(1, stream_key(ValueStream::input, 0), static_cast<std::uint64_t>(i));
    ASSERT_GE(u, -1.0f);
    ASSERT_LT(u, 1.0f);
    const double scaled = (static_cast<double>(u) + 1.0) * 8388608.0;  // back onto the 2^-23 grid
    ASSERT_EQ(scaled, std::floor(scaled));
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
}

TEST(SyntheticValues, DeterministicAndDistinctPerSeedStreamAndLayer) {
  const std::uint64_t index = 12345;
  const float base = uniform_value(1, stream_key(ValueStream::weight, 2), index);
  EXPECT_EQ(base, uniform_value(1, stream_key(ValueStream::weight, 2), index));
  std::set<float> values = {base, uniform_value(2, stream_key(ValueStream::weight, 2), index),
                            uniform_value(1, stream_key(ValueStream::weight, 3), index),
                            uniform_value(1, stream_key(ValueStream::bias, 2), index),
                            uniform_value(1, stream_key(ValueStream::weight, 2), index + 1)};
  EXPECT_EQ(values.size(), 5u);
}

TEST(SyntheticValues, BoundsScaleWithFanIn) {
  EXPECT_FLOAT_EQ(weight_bound(6), 1.0f);
  EXPECT_FLOAT_EQ(bias_bound(4), 0.5f);
  EXPECT_EQ(synthetic_value(1, 7, 9, 0.5f), 0.5f * uniform_value(1, 7, 9));
}

}  // namespace
}  // namespace collbench::kernels::training
