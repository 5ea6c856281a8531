// The trainer's host views of its state, used by the correctness checks and the report: the loss,
// the applied gradient, each rank's weights, and how many weight elements differ between ranks.
#include <cstring>

#include "cuda_resources.hpp"
#include "dp_trainer.hpp"
#include "errors.hpp"

namespace collbench::dp {
namespace {

double element_value(const unsigned char* data, std::size_t element_bytes) {
  if (element_bytes == 4) {
    float value;
    std::memcpy(&value, data, 4);
    return value;
  }
  // bfloat16: the upper half of a float.
  std::uint16_t bits;
  std::memcpy(&bits, data, 2);
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, 4);
  return value;
}

}  // namespace

double DataParallelTrainer::loss() const {
  double sum = 0;
  for (const auto& replica : replicas_) sum += replica->last_loss();
  return sum / ranks();
}

std::vector<unsigned char> DataParallelTrainer::copy_to_host(int rank, const void* device_pointer,
                                                             std::size_t bytes) const {
  ScopedDevice on(replicas_[rank]->device(), rank);
  std::vector<unsigned char> host(bytes);
  CB_CUDA_CHECK(cudaMemcpy(host.data(), device_pointer, bytes, cudaMemcpyDeviceToHost));
  return host;
}

std::vector<double> DataParallelTrainer::in_model_order(
    const std::vector<unsigned char>& flat) const {
  const std::size_t element_bytes = layout_.element_bytes();
  std::vector<double> values;
  values.reserve(layout_.parameter_count());
  for (const Parameter& p : layout_.parameters()) {
    for (std::uint64_t i = 0; i < p.elements(); ++i) {
      values.push_back(element_value(flat.data() + (p.offset + i) * element_bytes, element_bytes));
    }
  }
  return values;
}

std::vector<double> DataParallelTrainer::applied_gradient() const {
  const std::size_t bytes = layout_.total_bytes();
  std::vector<unsigned char> flat = copy_to_host(0, replicas_[0]->gradients(), bytes);
  if (config_.scheme == SyncScheme::sharded && ranks() > 1) {
    // Each bucket's reduced chunk r lives on rank r only.
    const std::size_t element_bytes = layout_.element_bytes();
    for (int rank = 1; rank < ranks(); ++rank) {
      const std::vector<unsigned char> other =
          copy_to_host(rank, replicas_[rank]->gradients(), bytes);
      for (const Bucket& bucket : layout_.buckets()) {
        const std::size_t begin = layout_.chunk_begin(bucket, rank) * element_bytes;
        std::memcpy(flat.data() + begin, other.data() + begin,
                    layout_.chunk_elements(bucket) * element_bytes);
      }
    }
  }
  std::vector<double> gradient = in_model_order(flat);
  const double scale = sync_ ? sync_->gradient_scale() : 1.0;
  if (scale != 1.0) {
    for (double& g : gradient) g *= scale;
  }
  return gradient;
}

std::vector<double> DataParallelTrainer::parameters(int rank) const {
  return in_model_order(copy_to_host(rank, replicas_[rank]->weights(), layout_.total_bytes()));
}

std::uint64_t DataParallelTrainer::differing_weight_elements() const {
  const std::size_t bytes = layout_.total_bytes();
  const std::size_t element_bytes = layout_.element_bytes();
  const std::vector<unsigned char> reference = copy_to_host(0, replicas_[0]->weights(), bytes);
  std::uint64_t differing = 0;
  for (int rank = 1; rank < ranks(); ++rank) {
    const std::vector<unsigned char> other = copy_to_host(rank, replicas_[rank]->weights(), bytes);
    for (std::size_t i = 0; i < bytes; i += element_bytes) {
      if (std::memcmp(reference.data() + i, other.data() + i, element_bytes) != 0) ++differing;
    }
  }
  return differing;
}

}  // namespace collbench::dp
