// The two SM loads: a loop of bf16 GEMMs (cuBLAS, tensor cores: what a training job's compute
// looks like) and a loop of the spin kernel (every SM held, nothing else touched).
#include "sm_load.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "contend_errors.hpp"
#include "cuda_check.hpp"
#include "cuda_owners.hpp"
#include "launch_pacer.hpp"
#include "spin_kernel.hpp"

namespace collbench::contend {
namespace {

constexpr int kGemmSize = 8192;        // m = n = k: about 1.1 TFLOP, 1.5-3 ms on an H100
constexpr int kGemmsPerBatch = 4;      // so 4 to 8 GEMMs are queued at any time
constexpr std::size_t kBf16Bytes = 2;  // one __nv_bfloat16
constexpr unsigned long long kSpinNs = 1'000'000;
constexpr int kSpinsPerBatch = 2;

void check_cublas(cublasStatus_t status, const char* call, int gpu) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw LoadError(fmt::format("{} on GPU {}: {}", call, gpu, cublasGetStatusString(status)));
}

class CublasHandle {
 public:
  CublasHandle(int gpu, cudaStream_t stream) : gpu_(gpu) {
    DeviceGuard guard(gpu);
    check_cublas(cublasCreate(&handle_), "cublasCreate", gpu);
    const cublasStatus_t status = cublasSetStream(handle_, stream);
    if (status != CUBLAS_STATUS_SUCCESS) cublasDestroy(handle_);
    check_cublas(status, "cublasSetStream", gpu);
  }
  ~CublasHandle() {
    const cublasStatus_t status = cublasDestroy(handle_);
    if (status != CUBLAS_STATUS_SUCCESS)
      std::fprintf(stderr, "collbench_contend: warning: cublasDestroy on GPU %d: %s\n", gpu_,
                   cublasGetStatusString(status));
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  int gpu_;
  cublasHandle_t handle_ = nullptr;
};

// C = A x B, bf16 in and out, float accumulation (the tensor-core path of training GEMMs).
void launch_gemm(const CublasHandle& cublas, const DeviceBuffer& a, const DeviceBuffer& b,
                 DeviceBuffer& c, int gpu) {
  const float alpha = 1.0f, beta = 0.0f;
  check_cublas(
      cublasGemmEx(cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize, kGemmSize, &alpha,
                   a.get(), CUDA_R_16BF, kGemmSize, b.get(), CUDA_R_16BF, kGemmSize, &beta, c.get(),
                   CUDA_R_16BF, kGemmSize, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmEx(bf16 8192^3)", gpu);
}

void run_gemm_load(int gpu, LoadSession& session) {
  DeviceGuard guard(gpu);
  Stream stream(gpu);
  const std::size_t bytes = std::size_t{kGemmSize} * kGemmSize * kBf16Bytes;
  DeviceBuffer a(gpu, bytes), b(gpu, bytes), c(gpu, bytes);
  // Bytes of 0x3c make bf16 values of about 0.0115: each output sums to about 1, far from
  // overflow, and the data is not all zeros (which would draw less power than real work).
  CONTEND_CUDA(cudaMemsetAsync(a.get(), 0x3c, bytes, stream.get()), gpu);
  CONTEND_CUDA(cudaMemsetAsync(b.get(), 0x3c, bytes, stream.get()), gpu);
  CublasHandle cublas(gpu, stream.get());
  LaunchPacer pacer(gpu, stream.get(), kGemmsPerBatch);
  for (int i = 0; i < kGemmsPerBatch; ++i) launch_gemm(cublas, a, b, c, gpu);
  pacer.drain();  // the first GEMMs are done: cuBLAS has loaded its kernels and runs
  session.announce(fmt::format("bf16 GEMM {0}x{0}x{0} loop on GPU {1} (cuBLAS, {2}-{3} queued)",
                               kGemmSize, gpu, kGemmsPerBatch, 2 * kGemmsPerBatch));
  long gemms = 0;
  while (!session.stopping()) {
    launch_gemm(cublas, a, b, c, gpu);
    pacer.launched();
    ++gemms;
  }
  pacer.drain();
  const double seconds = session.loaded_s();
  const double flop = 2.0 * kGemmSize * kGemmSize * kGemmSize * static_cast<double>(gemms);
  session.report(fmt::format("{} GEMMs on GPU {} in {:.1f} s ({:.0f} TFLOP/s)", gemms, gpu, seconds,
                             seconds > 0 ? flop / seconds / 1e12 : 0.0));
}

void run_spin_load(int gpu, LoadSession& session) {
  DeviceGuard guard(gpu);
  const SpinShape shape = spin_shape(gpu);
  Stream stream(gpu);
  LaunchPacer pacer(gpu, stream.get(), kSpinsPerBatch);
  for (int i = 0; i < kSpinsPerBatch; ++i) launch_spin(shape, stream.get(), kSpinNs, gpu);
  pacer.drain();
  session.announce(fmt::format(
      "SM spin kernel loop on GPU {} ({} SMs x {} blocks of {} threads, {} ms per launch)", gpu,
      shape.sms, shape.blocks_per_sm, shape.threads_per_block, kSpinNs / 1'000'000.0));
  long spins = 0;
  while (!session.stopping()) {
    launch_spin(shape, stream.get(), kSpinNs, gpu);
    pacer.launched();
    ++spins;
  }
  pacer.drain();
  const double seconds = session.loaded_s();
  session.report(fmt::format("{} spins of {} ms on GPU {} in {:.1f} s ({:.0f}% of the time)", spins,
                             kSpinNs / 1e6, gpu, seconds,
                             seconds > 0 ? 100.0 * spins * (kSpinNs / 1e9) / seconds : 0.0));
}

}  // namespace

void run_sm_load(const SmLoadOptions& options, LoadSession& session) {
  require_gpu(options.gpu, "--sm-load", std::to_string(options.gpu));
  if (options.kind == SmKind::gemm) {
    run_gemm_load(options.gpu, session);
  } else {
    run_spin_load(options.gpu, session);
  }
}

}  // namespace collbench::contend
