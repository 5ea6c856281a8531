// One rank's copy of the MLP: its device buffers (flat weights, gradients and optimizer state in
// the ParameterLayout, activations, ReLU masks, data and targets), its cuBLASLt GEMM plans, and
// the operations a step is made of, each enqueued on a stream the caller chooses.
//
// Shapes (row-major, PyTorch's Linear convention): X_l [B][H] is layer l's input, W_l [H][H],
// Y_l = act(X_l W_l^T + b_l) = X_{l+1}; act is ReLU for every layer but the last (linear output).
// cuBLAS sees row-major [r][c] as column-major c x r, so: forward D(HxB) = W^T(op T) X;
// weight gradient dW(HxH) = X dZ^T(op T); input gradient dX(HxB) = W dZ.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "dp_config.hpp"
#include "model/cublaslt_matmul.hpp"
#include "model/parameter_layout.hpp"
#include "runtime/cuda_resources.hpp"
#include "session/dp_report.hpp"
#include "training/bias_activation.hpp"
#include "training/sgd_momentum.hpp"

namespace collbench::dp {

// Which optimizer state a rank holds.
enum class OptimizerState {
  full,   // every parameter (sync, overlap, and ps rank 0)
  shard,  // its chunk of every bucket (sharded)
  none,   // nothing (ps ranks other than 0)
};

class ModelReplica {
 public:
  // Allocates and initialises everything on `device` (synchronously). `first_sample` is this
  // rank's first global sample index (rank * batch). Throws GpuError (out_of_memory() set) when
  // the GPU cannot hold it, UsageError when --epilogue fused is impossible.
  ModelReplica(const StepConfig& config, const ParameterLayout& layout, int rank, int device,
               std::uint64_t first_sample, OptimizerState state);

  int rank() const { return rank_; }
  int device() const { return device_; }
  // Which GEMM epilogues cuBLASLt runs: "fused" (bias and ReLU fused into every GEMM), "forward"
  // (into the forward GEMMs only) or "unfused" (plain GEMMs plus the kernels/training kernels).
  std::string_view epilogues() const;

  void forward(int layer, cudaStream_t stream) const;
  void loss(cudaStream_t stream) const;
  void weight_gradient(int layer, cudaStream_t stream) const;
  void input_gradient(int layer, cudaStream_t stream) const;
  // The parameters an update from element `begin` of the flat buffers writes, with optimizer state
  // from `state_offset` (for an update fused into the all-reduce).
  kernels::training::SgdTarget sgd_target(std::uint64_t begin, std::uint64_t state_offset,
                                          float gradient_scale) const;
  // SGD with momentum on elements [begin, begin + count) of the flat buffers, with optimizer
  // state from `state_offset` of this rank's state buffers.
  void update(std::uint64_t begin, std::uint64_t count, std::uint64_t state_offset,
              float gradient_scale, cudaStream_t stream) const;

  void* weights() const { return weights_.get(); }
  void* gradients() const { return gradients_.get(); }
  std::uint64_t flat_bytes() const { return weights_.bytes(); }
  MemoryFootprint memory() const;
  // This rank's loss of its last forward pass (mean squared error over its batch). Synchronises.
  double last_loss() const;

 private:
  struct LayerPlans {
    std::optional<MatmulPlan> forward, weight_gradient, input_gradient;
  };
  char* element(const DeviceBuffer& buffer, std::uint64_t index) const;
  // Mixed precision keeps the momentum in float32 beside the masters; without masters it is kept
  // in the model's dtype, as torch.optim.SGD does for a bfloat16 model.
  DataType velocity_type() const {
    return config_.model.master_weights ? DataType::float32 : config_.model.dtype;
  }
  const void* activation(int index) const { return activations_[index].get(); }
  void* output_gradient(int layer) const;  // dZ of `layer`
  // How much of bias and ReLU the GEMMs do. Backward fusion (DRELU, BGRADB) is not the default:
  // on H200 cuBLASLt runs those epilogues as separate, slower kernels and picks slower GEMMs.
  enum class Fusion { none, forward, all };
  bool build_plans(Fusion fusion);
  bool probe_plans();
  void initialise(std::uint64_t first_sample);

  StepConfig config_;
  const ParameterLayout& layout_;
  int rank_;
  int device_;
  int sm_count_ = 0;
  OptimizerState state_;
  Fusion fusion_ = Fusion::none;
  std::uint64_t matrix_elements_;  // B x H
  std::int64_t mask_ld_;           // ReLU mask leading dimension in bits

  DeviceBuffer weights_, gradients_, master_, velocity_;
  std::vector<DeviceBuffer> activations_;  // X_0 .. X_L (X_L is the output)
  std::vector<DeviceBuffer> masks_;        // ReLU bit masks of layers 0 .. L-2 (Fusion::all only)
  DeviceBuffer output_gradients_[2];       // dZ ping-pong
  DeviceBuffer target_, loss_partials_, workspace_;
  DeviceBuffer column_sums_;  // the bias-gradient kernels' scratch (compute stream only)
  kernels::training::ColumnSumScratch column_sum_scratch() const;
  std::optional<CublasLtHandle> handle_;
  std::vector<LayerPlans> plans_;
};

}  // namespace collbench::dp
