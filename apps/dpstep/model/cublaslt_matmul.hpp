// cuBLASLt for the training step: a checked call macro, owners of the handle and descriptors, and
// MatmulPlan, one GEMM with fixed shape, pointers of its epilogue inputs/outputs, and the
// algorithm the heuristic chose, created once and run every step.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/data_type.hpp"

namespace collbench::dp {

[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

}  // namespace collbench::dp

// Checks a cuBLAS/cuBLASLt call; throws GpuError naming the call, status, place, rank and GPU.
#define CB_CUBLAS_CHECK(call)                                                     \
  do {                                                                            \
    const cublasStatus_t cb_status_ = (call);                                     \
    if (cb_status_ != CUBLAS_STATUS_SUCCESS)                                      \
      ::collbench::dp::throw_cublas_error(cb_status_, #call, __FILE__, __LINE__); \
  } while (0)

namespace collbench::dp {

// A cuBLASLt handle made on (and released on) one device.
class CublasLtHandle {
 public:
  explicit CublasLtHandle(int device);
  ~CublasLtHandle();
  CublasLtHandle(const CublasLtHandle&) = delete;
  CublasLtHandle& operator=(const CublasLtHandle&) = delete;
  cublasLtHandle_t get() const { return handle_; }

 private:
  cublasLtHandle_t handle_ = nullptr;
  int device_;
};

// Column-major GEMM D = op(A) * op(B), D is m x n, op(A) m x k, op(B) k x n (cuBLAS convention).
struct MatmulShape {
  std::uint64_t m, n, k;
  bool transpose_a, transpose_b;
  std::uint64_t lda, ldb, ldd;
};

struct MatmulEpilogue {
  cublasLtEpilogue_t kind = CUBLASLT_EPILOGUE_DEFAULT;
  void* bias = nullptr;  // bias (BIAS variants) or bias gradient (BGRAD variants)
  void* aux = nullptr;   // ReLU bit mask: written by RELU_AUX*, read by DRELU*
  std::int64_t aux_ld = 0;
};

struct MatmulDescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* desc) const noexcept;
};
struct MatrixLayoutDeleter {
  void operator()(cublasLtMatrixLayoutOpaque_t* layout) const noexcept;
};
using MatmulDescPtr = std::unique_ptr<cublasLtMatmulDescOpaque_t, MatmulDescDeleter>;
using MatrixLayoutPtr = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, MatrixLayoutDeleter>;

class MatmulPlan {
 public:
  // The plan, or nullopt when cuBLASLt has no algorithm for this shape and epilogue (then the
  // caller falls back to a plain GEMM and separate kernels). Bad arguments throw GpuError.
  // `sm_count_target` > 0 asks the heuristic for kernels sized for that many SMs.
  static std::optional<MatmulPlan> create(cublasLtHandle_t handle, DataType type,
                                          const MatmulShape& shape, const MatmulEpilogue& epilogue,
                                          std::size_t workspace_bytes, int sm_count_target);
  // Enqueues D = op(A) op(B) (+ epilogue); beta is 0, D is not read.
  void run(cublasLtHandle_t handle, const void* a, const void* b, void* d, void* workspace,
           std::size_t workspace_bytes, cudaStream_t stream) const;

 private:
  MatmulPlan() = default;
  MatmulDescPtr desc_;
  MatrixLayoutPtr a_layout_, b_layout_, d_layout_;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace collbench::dp
