// The trainer's host views of its state, used by the correctness checks and the report: the loss,
// the applied gradient, each rank's weights, and how many weight elements differ between ranks.
// Whatever spans ranks goes through the communicator, so it is the same whether the ranks share
// a process or not.
#include <cstring>

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_group.hpp"
#include "session/dp_trainer.hpp"

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

std::uint64_t differing_elements(const std::vector<unsigned char>& a,
                                 const std::vector<unsigned char>& b, std::size_t element_bytes) {
  std::uint64_t differing = 0;
  for (std::size_t i = 0; i < a.size(); i += element_bytes) {
    if (std::memcmp(a.data() + i, b.data() + i, element_bytes) != 0) ++differing;
  }
  return differing;
}

}  // namespace

double DataParallelTrainer::loss() {
  std::vector<std::vector<double>> losses;
  for (const auto& replica : replicas_) losses.push_back({replica->last_loss()});
  return reduce_over_ranks(losses, ncclSum).front() / config_.ranks;
}

std::vector<unsigned char> DataParallelTrainer::copy_to_host(int local, const void* device_pointer,
                                                             std::size_t bytes) const {
  ScopedDevice on(replicas_[local]->device(), replicas_[local]->rank());
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

// Every rank copies its gradients into a scratch buffer, and each owned range is broadcast there
// from its owner, in place.
std::vector<unsigned char> DataParallelTrainer::gradient_from_owners(
    const std::vector<GradientSync::OwnedRange>& owned) {
  const std::size_t bytes = layout_.total_bytes();
  const std::size_t element_bytes = layout_.element_bytes();
  const std::vector<RankContext> ranks = comm_contexts();
  std::vector<DeviceBuffer> scratch;
  for (std::size_t local = 0; local < ranks.size(); ++local) {
    ScopedDevice on(ranks[local].device, ranks[local].rank);
    scratch.emplace_back(ranks[local].device, bytes);
    CB_CUDA_CHECK(cudaMemcpyAsync(scratch[local].get(), replicas_[local]->gradients(), bytes,
                                  cudaMemcpyDeviceToDevice, ranks[local].stream));
  }
  {
    NcclGroupScope group;
    for (const GradientSync::OwnedRange& range : owned) {
      for (std::size_t local = 0; local < ranks.size(); ++local) {
        ScopedDevice on(ranks[local].device, ranks[local].rank);
        char* at = scratch[local].as<char>() + range.begin * element_bytes;
        CB_NCCL_CHECK(ncclBroadcast(at, at, range.count * element_bytes, ncclUint8, range.owner,
                                    ranks[local].comm, ranks[local].stream));
      }
    }
    group.end();
  }
  wait_for_collectives();
  return copy_to_host(0, scratch.front().get(), bytes);
}

std::vector<double> DataParallelTrainer::applied_gradient() {
  std::vector<unsigned char> flat;
  const std::vector<GradientSync::OwnedRange> owned =
      sync_ ? sync_->gradient_owners() : std::vector<GradientSync::OwnedRange>{};
  if (!owned.empty()) {
    flat = gradient_from_owners(owned);
  } else if (holds_rank(0)) {
    // After an all-reduce every rank holds it; after ps' reduce, rank 0 does.
    flat =
        copy_to_host(local_index(0), replicas_[local_index(0)]->gradients(), layout_.total_bytes());
  }
  if (flat.empty()) return {};
  std::vector<double> gradient = in_model_order(flat);
  const double scale = sync_ ? sync_->gradient_scale() : 1.0;
  if (scale != 1.0) {
    for (double& g : gradient) g *= scale;
  }
  return gradient;
}

std::vector<double> DataParallelTrainer::parameters(int rank) const {
  const int local = local_index(rank);
  return in_model_order(copy_to_host(local, replicas_[local]->weights(), layout_.total_bytes()));
}

std::uint64_t DataParallelTrainer::differing_weight_elements() {
  if (config_.ranks == 1) return 0;
  const std::size_t bytes = layout_.total_bytes();
  const std::vector<RankContext> ranks = comm_contexts();
  // Rank 0's weights into a scratch buffer beside every rank's own.
  std::vector<DeviceBuffer> reference;
  for (const RankContext& rank : ranks) reference.emplace_back(rank.device, bytes);
  {
    NcclGroupScope group;
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      ScopedDevice on(ranks[local].device, ranks[local].rank);
      CB_NCCL_CHECK(ncclBroadcast(replicas_[local]->weights(), reference[local].get(), bytes,
                                  ncclUint8, 0, ranks[local].comm, ranks[local].stream));
    }
    group.end();
  }
  wait_for_collectives();
  std::vector<std::vector<std::uint64_t>> differing(ranks.size(), {0});
  for (std::size_t local = 0; local < ranks.size(); ++local) {
    if (ranks[local].rank == 0) continue;
    const int index = static_cast<int>(local);
    differing[local][0] = differing_elements(
        copy_to_host(index, reference[local].get(), bytes),
        copy_to_host(index, replicas_[local]->weights(), bytes), layout_.element_bytes());
  }
  return reduce_over_ranks(differing, ncclSum).front();
}

}  // namespace collbench::dp
