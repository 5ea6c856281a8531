// The pass/fail rules of the training step's correctness checks, kept apart from the GPU runs
// so they are unit-tested on the CPU: per-parameter comparison with a relative tolerance, the
// loss-decrease rule, tolerances per dtype, and the small model the checks run.
#pragma once

#include <string>
#include <vector>

#include "dp_config.hpp"
#include "model/parameter_layout.hpp"

namespace collbench::dp {

struct TensorComparison {
  double worst_relative_error = 0;  // max over parameters of max|got - expected| / max|expected|
  std::string worst_parameter;      // "layer 2 weight"
  bool ok = true;
};

// Compares two model-order vectors parameter by parameter; each parameter's error is relative to
// its largest expected magnitude (so tiny elements of a large tensor do not dominate). NaN fails.
TensorComparison compare_per_parameter(const ParameterLayout& layout,
                                       const std::vector<double>& got,
                                       const std::vector<double>& expected,
                                       double relative_tolerance);

// The loss of the second step is below the first's and the last is below 99% of the first.
bool loss_decreased(const std::vector<double>& losses);

// The relative tolerance for comparing gradients computed in `type` with float accumulation.
double gradient_tolerance(DataType type);

// A small model (3 layers of 64, 16 samples per GPU, buckets of a few KiB so every scheme uses
// several buckets) with the scheme, algorithm, rank count and dtype of `like`.
StepConfig small_check_config(const StepConfig& like);

}  // namespace collbench::dp
