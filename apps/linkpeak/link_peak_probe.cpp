// The link-peak measurement loop: gate, start event, copy, done event per transfer; then check.
#include "link_peak_probe.hpp"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "core/errors.hpp"
#include "fill_check.hpp"
#include "pull_copy.hpp"

namespace collbench::link_peak {
namespace {

// The check sees each buffer as 4-byte words; the destination must hold the source's pattern.
kernels::PatternParams pattern(std::uint64_t seed, int gpu_count, int source, std::uint64_t words) {
  return kernels::PatternParams{
      seed, gpu_count, source, words, kernels::ElementType::uint32, kernels::Reduction::none};
}

// Far longer than enqueueing one round takes; a wait that runs out means the host died or hung.
constexpr double kGateTimeoutS = 30;

}  // namespace

const char* method_name(CopyMethod method) {
  return method == CopyMethod::copy_engine ? "copy_engine" : "sm_copy";
}

const char* direction_name(Direction direction) {
  switch (direction) {
    case Direction::uni:
      return "uni";
    case Direction::bi:
      return "bi";
    default:
      return "all";
  }
}

std::vector<std::vector<Transfer>> transfer_groups(Direction direction, int gpu_count) {
  std::vector<std::vector<Transfer>> groups;
  if (gpu_count < 2) return groups;
  if (direction == Direction::all) {
    std::vector<Transfer> ring;
    for (int gpu = 0; gpu < gpu_count; ++gpu) ring.push_back({gpu, (gpu + 1) % gpu_count});
    groups.push_back(ring);
    return groups;
  }
  for (int a = 0; a < gpu_count; ++a) {
    for (int b = 0; b < gpu_count; ++b) {
      if (a == b) continue;
      if (direction == Direction::uni) groups.push_back({{a, b}});
      if (direction == Direction::bi && a < b) groups.push_back({{a, b}, {b, a}});
    }
  }
  return groups;
}

int gpus_in_group(const std::vector<Transfer>& group) {
  std::set<int> gpus;
  for (const Transfer& transfer : group) {
    gpus.insert(transfer.src);
    gpus.insert(transfer.dst);
  }
  return static_cast<int>(gpus.size());
}

LinkPeakProbe::LinkPeakProbe(int gpu_count, std::size_t bytes, std::uint64_t seed)
    : gpu_count_(gpu_count),
      bytes_(bytes),
      seed_(seed),
      peer_ok_(gpu_count, std::vector<bool>(gpu_count)) {
  const std::uint64_t words = bytes / 4;
  for (int gpu = 0; gpu < gpu_count; ++gpu) {
    ScopedDevice on(gpu);
    send_.emplace_back(gpu, bytes);
    receive_.emplace_back(gpu, bytes);
    streams_.emplace_back(gpu);
    start_.emplace_back(gpu);
    done_.emplace_back(gpu);
    int sm_count = 0;
    CB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, gpu));
    int blocks_per_sm = 0;
    CB_CUDA_CHECK(kernels::pull_copy_blocks_per_sm(&blocks_per_sm));
    copy_blocks_.push_back(sm_count * blocks_per_sm);
    CB_CUDA_CHECK(kernels::preload_wait_for_gate());
    if (words > 0)
      kernels::launch_fill(send_.back().get(), words, pattern(seed, gpu_count, gpu, words), gpu,
                           streams_.back().get());
    for (int peer = 0; peer < gpu_count; ++peer) {
      if (peer == gpu) continue;
      int can_access = 0;
      CB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, gpu, peer));
      peer_ok_[gpu][peer] = can_access != 0;
      if (can_access) peer_access_.emplace_back(gpu, peer);
    }
  }
  for (const Stream& stream : streams_) CB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
}

bool LinkPeakProbe::can_access_peer(int device, int peer) const {
  return peer_ok_.at(device).at(peer);
}

void LinkPeakProbe::enqueue_copy(CopyMethod method, const Transfer& transfer) {
  const cudaStream_t stream = streams_[transfer.dst].get();
  void* destination = receive_[transfer.dst].get();
  const void* source = send_[transfer.src].get();
  if (method == CopyMethod::copy_engine) {
    CB_CUDA_CHECK(
        cudaMemcpyPeerAsync(destination, transfer.dst, source, transfer.src, bytes_, stream));
  } else {
    CB_CUDA_CHECK(
        kernels::launch_pull_copy(destination, source, bytes_, copy_blocks_[transfer.dst], stream));
  }
}

std::vector<TransferResult> LinkPeakProbe::measure(CopyMethod method,
                                                   const std::vector<Transfer>& group, int warmup,
                                                   int iters) {
  std::vector<TransferResult> results;
  std::set<int> receivers;
  for (const Transfer& transfer : group) {
    if (transfer.src == transfer.dst || transfer.src < 0 || transfer.dst < 0 ||
        transfer.src >= gpu_count_ || transfer.dst >= gpu_count_ ||
        !receivers.insert(transfer.dst).second) {
      throw std::invalid_argument(
          fmt::format("link peak: bad transfer GPU {} -> GPU {} in a group of {}", transfer.src,
                      transfer.dst, group.size()));
    }
    results.push_back(TransferResult{transfer, {}, 0, 0, {}});
  }
  // The SM kernel reads the peer's memory directly; without peer access the group cannot run.
  if (method == CopyMethod::sm_copy) {
    for (const Transfer& transfer : group) {
      if (can_access_peer(transfer.dst, transfer.src)) continue;
      const std::string reason =
          fmt::format("GPU {} has no peer access to GPU {}", transfer.dst, transfer.src);
      for (TransferResult& result : results) result.skipped_reason = reason;
      return results;
    }
  }

  // Poison the destinations so that a copy that writes nothing cannot pass the check.
  for (const Transfer& transfer : group) {
    ScopedDevice on(transfer.dst);
    CB_CUDA_CHECK(
        cudaMemsetAsync(receive_[transfer.dst].get(), 0xFF, bytes_, streams_[transfer.dst].get()));
  }
  for (int round = 0; round < warmup + iters; ++round) {
    {
      // One thread enqueues every transfer of the round, then arrives for all of them (also when
      // enqueueing fails half way, so that no stream spins on).
      const int streams = static_cast<int>(group.size());
      const std::uint64_t ticket = gate_.next_round(streams);
      GateArrival arrival(gate_, streams);
      for (const Transfer& transfer : group) {
        ScopedDevice on(transfer.dst);
        const cudaStream_t stream = streams_[transfer.dst].get();
        gate_.hold(transfer.dst, stream, ticket, kGateTimeoutS);
        CB_CUDA_CHECK(cudaEventRecord(start_[transfer.dst].get(), stream));
        enqueue_copy(method, transfer);
        CB_CUDA_CHECK(cudaEventRecord(done_[transfer.dst].get(), stream));
      }
    }
    for (const Transfer& transfer : group)
      CB_CUDA_CHECK(cudaEventSynchronize(done_[transfer.dst].get()));
    gate_.check();
    if (round < warmup) continue;
    for (TransferResult& result : results) {
      const int dst = result.transfer.dst;
      result.iteration_us.push_back(1000.0 * elapsed_ms(start_[dst], done_[dst]));
    }
  }
  for (TransferResult& result : results) {
    result.checked_words = bytes_ / 4;
    result.wrong_words = count_wrong_words(result.transfer);
  }
  return results;
}

std::uint64_t LinkPeakProbe::count_wrong_words(const Transfer& transfer) {
  const std::uint64_t words = bytes_ / 4;
  if (words == 0) return 0;
  ScopedDevice on(transfer.dst);
  const cudaStream_t stream = streams_[transfer.dst].get();
  DeviceBuffer counter(transfer.dst, sizeof(unsigned long long));
  CB_CUDA_CHECK(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), stream));
  // Output word j on the receiver must be input word j of the sender (the "root" of the rule).
  const kernels::OutputRule same_as_source{kernels::SourceRank::root, kernels::SourceIndex::same,
                                           false};
  kernels::launch_count_mismatches(receive_[transfer.dst].get(), words,
                                   pattern(seed_, gpu_count_, transfer.src, words), same_as_source,
                                   transfer.dst, counter.as<unsigned long long>(), stream);
  unsigned long long wrong = 0;
  CB_CUDA_CHECK(
      cudaMemcpyAsync(&wrong, counter.get(), sizeof wrong, cudaMemcpyDeviceToHost, stream));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return wrong;
}

}  // namespace collbench::link_peak
