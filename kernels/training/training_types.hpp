// The element types the training-step kernels handle, and a check that names an unsupported one.
#pragma once

#include <stdexcept>
#include <string>

#include "test_values.cuh"

namespace collbench::kernels::training {

using collbench::kernels::ElementType;

// Model data is float32 or bfloat16 (accumulation is always float).
inline bool is_training_type(ElementType type) {
  return type == ElementType::float32 || type == ElementType::bfloat16;
}

inline void require_training_type(ElementType type, const char* kernel) {
  if (!is_training_type(type)) {
    throw std::invalid_argument(std::string(kernel) + ": element type must be float32 or bfloat16");
  }
}

}  // namespace collbench::kernels::training
