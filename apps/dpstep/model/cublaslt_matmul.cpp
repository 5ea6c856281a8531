// cuBLASLt descriptors, heuristic algorithm choice and the GEMM call.
#include "model/cublaslt_matmul.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench::dp {

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  int device = -1;
  cudaGetDevice(&device);
  std::string place = fmt::format("{}:{}", file, line);
  if (current_rank() >= 0) place += fmt::format(", rank {}", current_rank());
  if (device >= 0) place += fmt::format(", GPU {}", device);
  throw GpuError(fmt::format("{} failed: {} ({}) [{}]", call, cublasLtGetStatusName(status),
                             cublasLtGetStatusString(status), place),
                 status == CUBLAS_STATUS_ALLOC_FAILED);
}

CublasLtHandle::CublasLtHandle(int device) : device_(device) {
  ScopedDevice on(device);
  CB_CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtHandle::~CublasLtHandle() {
  if (!handle_) return;
  ScopedDevice on(device_);
  const cublasStatus_t status = cublasLtDestroy(handle_);
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "collbench_dpstep: warning: cublasLtDestroy failed: %s\n",
                 cublasLtGetStatusName(status));
  }
}

void MatmulDescDeleter::operator()(cublasLtMatmulDescOpaque_t* desc) const noexcept {
  cublasLtMatmulDescDestroy(desc);
}
void MatrixLayoutDeleter::operator()(cublasLtMatrixLayoutOpaque_t* layout) const noexcept {
  cublasLtMatrixLayoutDestroy(layout);
}

namespace {

cudaDataType_t cuda_type_of(DataType type) {
  return type == DataType::bfloat16 ? CUDA_R_16BF : CUDA_R_32F;
}

MatrixLayoutPtr make_layout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols,
                            std::uint64_t ld) {
  cublasLtMatrixLayout_t layout = nullptr;
  CB_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&layout, type, rows, cols, static_cast<std::int64_t>(ld)));
  return MatrixLayoutPtr(layout);
}

template <typename T>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute,
                   const T& value) {
  CB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)));
}

struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreferenceOpaque_t* preference) const noexcept {
    cublasLtMatmulPreferenceDestroy(preference);
  }
};

}  // namespace

std::optional<MatmulPlan> MatmulPlan::create(cublasLtHandle_t handle, DataType type,
                                             const MatmulShape& shape,
                                             const MatmulEpilogue& epilogue,
                                             std::size_t workspace_bytes, int sm_count_target) {
  MatmulPlan plan;
  const cudaDataType_t element = cuda_type_of(type);
  cublasLtMatmulDesc_t desc = nullptr;
  // float accumulation for both types: CUBLAS_COMPUTE_32F (no TF32 for float, so float results
  // are comparable with a double reference).
  CB_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  plan.desc_.reset(desc);
  const cublasOperation_t op_a = shape.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = shape.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, op_a);
  set_attribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, op_b);
  set_attribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue.kind);
  if (epilogue.bias) set_attribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, epilogue.bias);
  if (epilogue.aux) {
    set_attribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, epilogue.aux);
    set_attribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, epilogue.aux_ld);
  }
  if (sm_count_target > 0)
    set_attribute(desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, sm_count_target);

  // Stored shapes: op(A) is m x k, so A is k x m when transposed; likewise B.
  plan.a_layout_ = shape.transpose_a ? make_layout(element, shape.k, shape.m, shape.lda)
                                     : make_layout(element, shape.m, shape.k, shape.lda);
  plan.b_layout_ = shape.transpose_b ? make_layout(element, shape.n, shape.k, shape.ldb)
                                     : make_layout(element, shape.k, shape.n, shape.ldb);
  plan.d_layout_ = make_layout(element, shape.m, shape.n, shape.ldd);

  cublasLtMatmulPreference_t preference_raw = nullptr;
  CB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference_raw));
  std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, PreferenceDeleter> preference(preference_raw);
  const std::uint64_t workspace = workspace_bytes;
  CB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle, desc, plan.a_layout_.get(), plan.b_layout_.get(), plan.d_layout_.get(),
      plan.d_layout_.get(), preference.get(), 1, &result, &found);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0))
    return std::nullopt;
  CB_CUBLAS_CHECK(status);
  plan.algo_ = result.algo;
  return plan;
}

void MatmulPlan::run(cublasLtHandle_t handle, const void* a, const void* b, void* d,
                     void* workspace, std::size_t workspace_bytes, cudaStream_t stream) const {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  CB_CUBLAS_CHECK(cublasLtMatmul(handle, desc_.get(), &alpha, a, a_layout_.get(), b,
                                 b_layout_.get(), &beta, d, d_layout_.get(), d, d_layout_.get(),
                                 &algo_, workspace, workspace_bytes, stream));
}

}  // namespace collbench::dp
