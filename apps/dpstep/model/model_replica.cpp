// One rank's MLP: allocation, synthetic initialisation, GEMM plans (fused epilogues or separate
// kernels) and the per-layer operations.
#include "model/model_replica.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "core/errors.hpp"
#include "training/bias_activation.hpp"
#include "training/init_kernels.hpp"
#include "training/mse_loss.hpp"
#include "training/sgd_momentum.hpp"
#include "training/synthetic_values.cuh"

namespace collbench::dp {
namespace {

namespace tk = kernels::training;

// cuBLASLt's recommended workspace for Hopper.
constexpr std::size_t kWorkspaceBytes = 32ull << 20;

tk::ElementType element_type(DataType type) {
  return type == DataType::bfloat16 ? tk::ElementType::bfloat16 : tk::ElementType::float32;
}

}  // namespace

ModelReplica::ModelReplica(const StepConfig& config, const ParameterLayout& layout, int rank,
                           int device, std::uint64_t first_sample, OptimizerState state)
    : config_(config), layout_(layout), rank_(rank), device_(device), state_(state) {
  ScopedDevice on(device, rank);
  CB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
  const ModelConfig& m = config.model;
  const std::uint64_t width = static_cast<std::uint64_t>(m.width);
  const std::uint64_t batch = static_cast<std::uint64_t>(m.batch);
  const std::size_t element_bytes = size_of(m.dtype);
  matrix_elements_ = batch * width;
  mask_ld_ =
      static_cast<std::int64_t>((width + 127) / 128 * 128);  // cuBLASLt: a multiple of 128 bits

  weights_ = DeviceBuffer(device, layout.total_bytes());
  gradients_ = DeviceBuffer(device, layout.total_bytes());
  std::uint64_t state_elements = 0;
  if (state == OptimizerState::full) state_elements = layout.total_elements();
  if (state == OptimizerState::shard) state_elements = layout.shard_elements();
  const bool master = m.dtype == DataType::bfloat16 && m.master_weights && state_elements > 0;
  if (master) master_ = DeviceBuffer(device, state_elements * sizeof(float));
  velocity_ = DeviceBuffer(device, state_elements * size_of(velocity_type()));
  for (int i = 0; i <= m.layers; ++i)
    activations_.emplace_back(device, matrix_elements_ * element_bytes);
  for (DeviceBuffer& buffer : output_gradients_)
    buffer = DeviceBuffer(device, matrix_elements_ * element_bytes);
  target_ = DeviceBuffer(device, matrix_elements_ * element_bytes);
  loss_partials_ = DeviceBuffer(device, tk::kLossPartials * sizeof(float));
  column_sums_ = DeviceBuffer(device, tk::column_sum_scratch_bytes(batch, width));
  workspace_ = DeviceBuffer(device, kWorkspaceBytes);
  handle_.emplace(device);

  initialise(first_sample);

  // Each level in turn until cuBLASLt offers (and, for auto, accepts) every GEMM of it.
  std::vector<Fusion> levels = {Fusion::forward, Fusion::none};
  if (m.epilogue == EpilogueMode::fused) levels = {Fusion::all};
  if (m.epilogue == EpilogueMode::unfused) levels = {Fusion::none};
  bool planned = false;
  for (Fusion level : levels) {
    fusion_ = level;
    masks_.clear();
    if (level == Fusion::all) {
      for (int layer = 0; layer + 1 < m.layers; ++layer) {
        masks_.emplace_back(device, static_cast<std::uint64_t>(mask_ld_) * batch / 8);
      }
    }
    planned = build_plans(level) &&
              (level == Fusion::none || m.epilogue != EpilogueMode::automatic || probe_plans());
    if (planned) break;
  }
  if (!planned && m.epilogue == EpilogueMode::fused) {
    throw UsageError(fmt::format(
        "--epilogue fused: cuBLASLt offers no fused bias/ReLU epilogue for {} x {} in {}", m.width,
        m.batch, name_of(m.dtype)));
  }
  if (!planned) {
    throw GpuError(fmt::format("cuBLASLt offers no algorithm for a {} x {} x {} {} GEMM", m.width,
                               m.batch, m.width, name_of(m.dtype)),
                   false);
  }
  CB_CUDA_CHECK(cudaDeviceSynchronize());
}

char* ModelReplica::element(const DeviceBuffer& buffer, std::uint64_t index) const {
  return buffer.as<char>() + index * size_of(config_.model.dtype);
}

void* ModelReplica::output_gradient(int layer) const {
  return output_gradients_[(config_.model.layers - 1 - layer) % 2].get();
}

void ModelReplica::initialise(std::uint64_t first_sample) {
  const ModelConfig& m = config_.model;
  const tk::ElementType type = element_type(m.dtype);
  const std::uint64_t width = static_cast<std::uint64_t>(m.width);
  const cudaStream_t stream = nullptr;  // setup only, synchronised below
  // Zero first: padding between parameters must read as zero forever (its gradient is zero).
  CB_CUDA_CHECK(cudaMemsetAsync(weights_.get(), 0, weights_.bytes(), stream));
  CB_CUDA_CHECK(cudaMemsetAsync(gradients_.get(), 0, gradients_.bytes(), stream));
  CB_CUDA_CHECK(cudaMemsetAsync(velocity_.get(), 0, velocity_.bytes(), stream));
  CB_CUDA_CHECK(cudaMemsetAsync(loss_partials_.get(), 0, loss_partials_.bytes(), stream));
  CB_CUDA_CHECK(cudaMemsetAsync(column_sums_.get(), 0, column_sums_.bytes(), stream));  // tickets
  // Every rank draws the same weights from the same seed: the replicas start identical, as
  // after DDP's initial broadcast.
  for (int layer = 0; layer < m.layers; ++layer) {
    const Parameter& w = layout_.weight(layer);
    const Parameter& b = layout_.bias(layer);
    tk::launch_fill_synthetic(type, element(weights_, w.offset), w.elements(), m.seed,
                              tk::stream_key(tk::ValueStream::weight, layer), 0,
                              tk::weight_bound(m.width), stream);
    CB_CHECK_LAUNCH();
    tk::launch_fill_synthetic(type, element(weights_, b.offset), b.elements(), m.seed,
                              tk::stream_key(tk::ValueStream::bias, layer), 0,
                              tk::bias_bound(m.width), stream);
    CB_CHECK_LAUNCH();
  }
  // This rank's slice of the data set: global samples [first_sample, first_sample + batch).
  const std::uint64_t first_index = first_sample * width;
  tk::launch_fill_synthetic(type, activations_[0].get(), matrix_elements_, m.seed,
                            tk::stream_key(tk::ValueStream::input, 0), first_index, 1.0f, stream);
  CB_CHECK_LAUNCH();
  tk::launch_fill_synthetic(type, target_.get(), matrix_elements_, m.seed,
                            tk::stream_key(tk::ValueStream::target, 0), first_index, 1.0f, stream);
  CB_CHECK_LAUNCH();
  if (master_) {
    float* master = master_.as<float>();
    if (state_ == OptimizerState::full) {
      tk::launch_widen_to_float(type, weights_.get(), master, layout_.total_elements(), stream);
      CB_CHECK_LAUNCH();
    } else {
      for (const Bucket& bucket : layout_.buckets()) {
        tk::launch_widen_to_float(type, element(weights_, layout_.chunk_begin(bucket, rank_)),
                                  master + layout_.shard_offset(bucket),
                                  layout_.chunk_elements(bucket), stream);
        CB_CHECK_LAUNCH();
      }
    }
  }
  CB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::string_view ModelReplica::epilogues() const {
  switch (fusion_) {
    case Fusion::all:
      return "fused";
    case Fusion::forward:
      return "forward";
    default:
      return "unfused";
  }
}

bool ModelReplica::build_plans(Fusion fusion) {
  const ModelConfig& m = config_.model;
  const std::uint64_t h = static_cast<std::uint64_t>(m.width);
  const std::uint64_t b = static_cast<std::uint64_t>(m.batch);
  const cublasLtHandle_t handle = handle_->get();
  // Backward GEMMs overlap communication: optionally sized for the SMs it leaves them.
  const int backward_sms = backward_gemm_sm_target(config_, sm_count_);
  plans_.clear();
  plans_.resize(static_cast<std::size_t>(m.layers));
  for (int layer = 0; layer < m.layers; ++layer) {
    const bool hidden = layer + 1 < m.layers;
    LayerPlans& p = plans_[layer];
    MatmulEpilogue forward;
    if (fusion != Fusion::none) {
      // The ReLU mask is kept only for a fused DRELU; otherwise ReLU's gradient comes from X_l.
      const bool mask = hidden && fusion == Fusion::all;
      forward.kind = mask     ? CUBLASLT_EPILOGUE_RELU_AUX_BIAS
                     : hidden ? CUBLASLT_EPILOGUE_RELU_BIAS
                              : CUBLASLT_EPILOGUE_BIAS;
      forward.bias = element(weights_, layout_.bias(layer).offset);
      if (mask) {
        forward.aux = masks_[layer].get();
        forward.aux_ld = mask_ld_;
      }
    }
    p.forward = MatmulPlan::create(handle, m.dtype, {h, b, h, true, false, h, h, h}, forward,
                                   workspace_.bytes(), 0);
    const bool fused = fusion == Fusion::all;
    MatmulEpilogue weight_grad;
    if (fused) {
      weight_grad.kind =
          CUBLASLT_EPILOGUE_BGRADB;  // db = dZ summed over the batch (B's k dimension)
      weight_grad.bias = element(gradients_, layout_.bias(layer).offset);
    }
    p.weight_gradient = MatmulPlan::create(handle, m.dtype, {h, h, b, false, true, h, h, h},
                                           weight_grad, workspace_.bytes(), backward_sms);
    if (!p.forward || !p.weight_gradient) return false;
    if (layer > 0) {
      MatmulEpilogue input_grad;
      if (fused) {
        input_grad.kind = CUBLASLT_EPILOGUE_DRELU;  // previous layer's ReLU gradient from its mask
        input_grad.aux = masks_[layer - 1].get();
        input_grad.aux_ld = mask_ld_;
      }
      p.input_gradient = MatmulPlan::create(handle, m.dtype, {h, b, h, false, false, h, h, h},
                                            input_grad, workspace_.bytes(), backward_sms);
      if (!p.input_gradient) return false;
    }
  }
  return true;
}

// A heuristic may offer an epilogue the matmul call then refuses: run every fused GEMM once on
// the initialised buffers (each output is recomputed by the first real step) and fall back if any
// is refused.
bool ModelReplica::probe_plans() {
  try {
    for (int layer = 0; layer < config_.model.layers; ++layer) forward(layer, nullptr);
    loss(nullptr);
    for (int layer = config_.model.layers - 1; layer >= 0; --layer) {
      weight_gradient(layer, nullptr);
      if (layer > 0) input_gradient(layer, nullptr);
    }
    CB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    return true;
  } catch (const GpuError& error) {
    if (error.out_of_memory()) throw;
    std::fprintf(
        stderr, "collbench_dpstep: fused cuBLASLt epilogues refused (%s); using separate kernels\n",
        error.what());
    return false;
  }
}

void ModelReplica::forward(int layer, cudaStream_t stream) const {
  const ModelConfig& m = config_.model;
  const LayerPlans& p = plans_[layer];
  const Parameter& w = layout_.weight(layer);
  p.forward->run(handle_->get(), element(weights_, w.offset), activation(layer),
                 activations_[layer + 1].get(), workspace_.get(), workspace_.bytes(), stream);
  if (fusion_ == Fusion::none) {
    kernels::training::launch_bias_activation(
        element_type(m.dtype), activations_[layer + 1].get(),
        element(weights_, layout_.bias(layer).offset), static_cast<std::uint64_t>(m.batch),
        static_cast<std::uint64_t>(m.width), layer + 1 < m.layers, stream);
    CB_CHECK_LAUNCH();
  }
}

void ModelReplica::loss(cudaStream_t stream) const {
  const ModelConfig& m = config_.model;
  // loss = mean over B x H of (y - t)^2, so dLoss/dy = 2 (y - t) / (B H).
  const float gradient_scale = 2.0f / static_cast<float>(matrix_elements_);
  kernels::training::launch_mse_loss(element_type(m.dtype), activations_[m.layers].get(),
                                     target_.get(), output_gradient(m.layers - 1), matrix_elements_,
                                     gradient_scale, loss_partials_.as<float>(), stream);
  CB_CHECK_LAUNCH();
}

void ModelReplica::weight_gradient(int layer, cudaStream_t stream) const {
  const ModelConfig& m = config_.model;
  const LayerPlans& p = plans_[layer];
  const void* dz = output_gradient(layer);
  // Below the last layer, input_gradient(layer + 1) already summed this bias gradient while it
  // applied ReLU's gradient to dz.
  if (fusion_ != Fusion::all && layer + 1 == m.layers) {
    kernels::training::launch_bias_gradient(
        element_type(m.dtype), dz, element(gradients_, layout_.bias(layer).offset),
        static_cast<std::uint64_t>(m.batch), static_cast<std::uint64_t>(m.width),
        column_sum_scratch(), stream);
    CB_CHECK_LAUNCH();
  }
  p.weight_gradient->run(handle_->get(), activation(layer), dz,
                         element(gradients_, layout_.weight(layer).offset), workspace_.get(),
                         workspace_.bytes(), stream);
}

void ModelReplica::input_gradient(int layer, cudaStream_t stream) const {
  const ModelConfig& m = config_.model;
  const LayerPlans& p = plans_[layer];
  void* dz_previous = output_gradient(layer - 1);
  p.input_gradient->run(handle_->get(), element(weights_, layout_.weight(layer).offset),
                        output_gradient(layer), dz_previous, workspace_.get(), workspace_.bytes(),
                        stream);
  if (fusion_ != Fusion::all) {
    // Layer l-1's output is X_l: ReLU's gradient is 1 where it is positive. The same pass sums
    // layer l-1's bias gradient from the masked dZ.
    kernels::training::launch_relu_backward_bias_gradient(
        element_type(m.dtype), dz_previous, activation(layer),
        element(gradients_, layout_.bias(layer - 1).offset), static_cast<std::uint64_t>(m.batch),
        static_cast<std::uint64_t>(m.width), column_sum_scratch(), stream);
    CB_CHECK_LAUNCH();
  }
}

kernels::training::ColumnSumScratch ModelReplica::column_sum_scratch() const {
  return kernels::training::column_sum_scratch(column_sums_.get(),
                                               static_cast<std::uint64_t>(config_.model.batch),
                                               static_cast<std::uint64_t>(config_.model.width));
}

kernels::training::SgdTarget ModelReplica::sgd_target(std::uint64_t begin,
                                                      std::uint64_t state_offset,
                                                      float gradient_scale) const {
  const ModelConfig& m = config_.model;
  return {element_type(m.dtype),
          element(weights_, begin),
          master_ ? master_.as<float>() + state_offset : nullptr,
          velocity_.as<char>() + state_offset * size_of(velocity_type()),
          element_type(velocity_type()),
          {m.learning_rate, m.momentum, gradient_scale}};
}

void ModelReplica::update(std::uint64_t begin, std::uint64_t count, std::uint64_t state_offset,
                          float gradient_scale, cudaStream_t stream) const {
  if (state_ == OptimizerState::none || count == 0) return;
  // On the optimizer stream, of normal priority (dp_trainer.cpp): it yields SMs to the GEMMs.
  kernels::training::launch_sgd_momentum(sgd_target(begin, state_offset, gradient_scale),
                                         element(gradients_, begin), count, stream);
  CB_CHECK_LAUNCH();
}

MemoryFootprint ModelReplica::memory() const {
  return {weights_.bytes(), gradients_.bytes(), master_.bytes() + velocity_.bytes()};
}

double ModelReplica::last_loss() const {
  ScopedDevice on(device_, rank_);
  std::vector<float> partials(kernels::training::kLossPartials);
  CB_CUDA_CHECK(cudaMemcpy(partials.data(), loss_partials_.get(), loss_partials_.bytes(),
                           cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float partial : partials) sum += partial;
  return sum / static_cast<double>(matrix_elements_);
}

}  // namespace collbench::dp
