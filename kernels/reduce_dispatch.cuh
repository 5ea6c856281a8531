// The run-time switches from (element type, reduction, rank count) to the kernel instance that
// handles them: body(T{}, Op{}) with the CUDA element type and reduction functor (avg runs as
// SumOp; the kernels divide at the end), and body(integral_constant<int, N>) for the rank count.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "reduce_ops.cuh"
#include "test_values.cuh"

namespace collbench::kernels {

template <typename Body>
void with_reduction_op(Reduction reduction, Body&& body) {
  switch (reduction) {
    case Reduction::sum:
    case Reduction::avg:
      body(SumOp{});
      break;
    case Reduction::prod:
      body(ProdOp{});
      break;
    case Reduction::max:
      body(MaxOp{});
      break;
    case Reduction::min:
      body(MinOp{});
      break;
    default:
      throw std::invalid_argument("hand-built all-reduce: no reduction operation given");
  }
}

template <typename Body>
void with_reduction(ElementType type, Reduction reduction, Body&& body) {
  with_reduction_op(reduction, [&](auto op) {
    switch (type) {
      case ElementType::int8:
        body(std::int8_t{}, op);
        break;
      case ElementType::uint8:
        body(std::uint8_t{}, op);
        break;
      case ElementType::int32:
        body(std::int32_t{}, op);
        break;
      case ElementType::uint32:
        body(std::uint32_t{}, op);
        break;
      case ElementType::int64:
        body(std::int64_t{}, op);
        break;
      case ElementType::uint64:
        body(std::uint64_t{}, op);
        break;
      case ElementType::half:
        body(__half{}, op);
        break;
      case ElementType::float32:
        body(float{}, op);
        break;
      case ElementType::float64:
        body(double{}, op);
        break;
      case ElementType::bfloat16:
        body(__nv_bfloat16{}, op);
        break;
    }
  });
}

// Calls body(std::integral_constant<int, N>{}) for N = nranks in 2..8, so loops over ranks unroll.
template <typename Body>
void with_rank_count(int nranks, Body&& body) {
  switch (nranks) {
    case 2:
      body(std::integral_constant<int, 2>{});
      break;
    case 3:
      body(std::integral_constant<int, 3>{});
      break;
    case 4:
      body(std::integral_constant<int, 4>{});
      break;
    case 5:
      body(std::integral_constant<int, 5>{});
      break;
    case 6:
      body(std::integral_constant<int, 6>{});
      break;
    case 7:
      body(std::integral_constant<int, 7>{});
      break;
    case 8:
      body(std::integral_constant<int, 8>{});
      break;
    default:
      throw std::invalid_argument("hand-built all-reduce: " + std::to_string(nranks) +
                                  " ranks (2 to 8 supported)");
  }
}

// Bytes of one element of `type`.
inline std::uint64_t element_size(ElementType type) {
  switch (type) {
    case ElementType::int8:
    case ElementType::uint8:
      return 1;
    case ElementType::half:
    case ElementType::bfloat16:
      return 2;
    case ElementType::int32:
    case ElementType::uint32:
    case ElementType::float32:
      return 4;
    default:
      return 8;
  }
}

}  // namespace collbench::kernels
