// Pass/fail rules of the correctness checks (see check_rules.hpp).
#include "checks/check_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace collbench::dp {

TensorComparison compare_per_parameter(const ParameterLayout& layout,
                                       const std::vector<double>& got,
                                       const std::vector<double>& expected,
                                       double relative_tolerance) {
  TensorComparison result;
  if (got.size() != expected.size() || got.size() != layout.parameter_count()) {
    result.ok = false;
    result.worst_parameter = "(sizes differ)";
    result.worst_relative_error = INFINITY;
    return result;
  }
  std::size_t begin = 0;
  for (const Parameter& p : layout.parameters()) {
    const std::size_t end = begin + p.elements();
    double largest = 0;
    double error = 0;
    for (std::size_t i = begin; i < end; ++i) {
      largest = std::max(largest, std::fabs(expected[i]));
      const double difference = std::fabs(got[i] - expected[i]);
      // NaN never compares greater: count it as infinitely wrong.
      error = std::isnan(difference) ? INFINITY : std::max(error, difference);
    }
    // An all-zero expected tensor must be matched exactly (up to denormal noise).
    const double relative = largest > 0 ? error / largest : (error > 1e-30 ? INFINITY : 0);
    if (relative > result.worst_relative_error || result.worst_parameter.empty()) {
      result.worst_relative_error = relative;
      result.worst_parameter = fmt::format("layer {} {}", p.layer, p.is_bias ? "bias" : "weight");
    }
    begin = end;
  }
  result.ok = result.worst_relative_error <= relative_tolerance;
  return result;
}

bool loss_decreased(const std::vector<double>& losses) {
  if (losses.size() < 2) return false;
  for (double loss : losses) {
    if (!std::isfinite(loss)) return false;
  }
  return losses[1] < losses[0] && losses.back() < 0.99 * losses.front();
}

double gradient_tolerance(DataType type) {
  // bfloat16 keeps 8 significant bits; the split batch changes rounding of activations and
  // gradients, so a few units in the last place relative to the tensor's scale.
  return type == DataType::bfloat16 ? 3e-2 : 1e-4;
}

StepConfig small_check_config(const StepConfig& like) {
  StepConfig small = like;
  small.model.layers = 3;
  small.model.width = 64;
  small.model.batch = 16;
  // Large enough a step for the loss to fall visibly in a few steps on this small model, well
  // inside the stable range (curvature ~ 2 E[x^2] / width).
  small.model.learning_rate = 1.0f;
  small.model.momentum = 0.9f;
  // A layer of 64 x 64 float is 16.6 KB: 0.01 MiB splits each layer into two buckets.
  small.bucket_mib = 0.01;
  small.gemm_sm_margin = 0;
  return small;
}

}  // namespace collbench::dp
