// NCCL all-reduces of host values through small device buffers, and the polling wait.
#include "runtime/host_collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "runtime/cuda_resources.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "runtime/nccl_group.hpp"
#include "core/errors.hpp"

namespace collbench {
namespace {

template <typename Value>
ncclDataType_t nccl_type_of();
template <>
ncclDataType_t nccl_type_of<double>() {
  return ncclFloat64;
}
template <>
ncclDataType_t nccl_type_of<std::uint64_t>() {
  return ncclUint64;
}
template <>
ncclDataType_t nccl_type_of<std::int32_t>() {
  return ncclInt32;
}
template <>
ncclDataType_t nccl_type_of<std::uint8_t>() {
  return ncclUint8;
}

}  // namespace

template <typename Value>
std::vector<Value> all_reduce_host_values(const std::vector<RankContext>& ranks,
                                          const std::vector<std::vector<Value>>& per_rank,
                                          ncclRedOp_t op,
                                          const std::function<void()>& wait_until_done) {
  if (ranks.empty() || per_rank.size() != ranks.size()) {
    throw std::invalid_argument(
        "all_reduce_host_values: one vector of values per local rank is needed");
  }
  const std::size_t count = per_rank.front().size();
  for (const std::vector<Value>& values : per_rank) {
    if (values.size() != count)
      throw std::invalid_argument("all_reduce_host_values: ranks give different lengths");
  }
  const std::size_t bytes = sizeof(Value) * std::max<std::size_t>(count, 1);
  std::vector<DeviceBuffer> scratch;
  for (std::size_t local = 0; local < ranks.size(); ++local) {
    ScopedDevice on(ranks[local].device, ranks[local].rank);
    scratch.emplace_back(ranks[local].device, bytes);
    CB_CUDA_CHECK(cudaMemcpyAsync(scratch.back().get(), per_rank[local].data(),
                                  sizeof(Value) * count, cudaMemcpyHostToDevice,
                                  ranks[local].stream));
  }
  {
    NcclGroupScope group;
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      ScopedDevice on(ranks[local].device, ranks[local].rank);
      CB_NCCL_CHECK(ncclAllReduce(scratch[local].get(), scratch[local].get(), count,
                                  nccl_type_of<Value>(), op, ranks[local].comm,
                                  ranks[local].stream));
    }
    group.end();
  }
  wait_until_done();
  std::vector<Value> result(count);
  ScopedDevice on(ranks.front().device, ranks.front().rank);
  CB_CUDA_CHECK(cudaMemcpy(result.data(), scratch.front().get(), sizeof(Value) * count,
                           cudaMemcpyDeviceToHost));
  return result;
}

template std::vector<double> all_reduce_host_values(const std::vector<RankContext>&,
                                                    const std::vector<std::vector<double>>&,
                                                    ncclRedOp_t, const std::function<void()>&);
template std::vector<std::uint64_t> all_reduce_host_values(
    const std::vector<RankContext>&, const std::vector<std::vector<std::uint64_t>>&, ncclRedOp_t,
    const std::function<void()>&);
template std::vector<std::int32_t> all_reduce_host_values(
    const std::vector<RankContext>&, const std::vector<std::vector<std::int32_t>>&, ncclRedOp_t,
    const std::function<void()>&);
template std::vector<std::uint8_t> all_reduce_host_values(
    const std::vector<RankContext>&, const std::vector<std::vector<std::uint8_t>>&, ncclRedOp_t,
    const std::function<void()>&);

void wait_for_streams(const std::vector<RankContext>& ranks, double timeout_s,
                      std::string_view waiting_for) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (const RankContext& rank : ranks) {
    ScopedDevice on(rank.device, rank.rank);
    for (;;) {
      const cudaError_t status = cudaStreamQuery(rank.stream);
      if (status == cudaSuccess) break;
      if (status != cudaErrorNotReady)
        throw_cuda_error(status, "cudaStreamQuery", __FILE__, __LINE__);
      throw_if_interrupted();
      if (rank.comm) {
        ncclResult_t async_error = ncclSuccess;
        CB_NCCL_CHECK(ncclCommGetAsyncError(rank.comm, &async_error));
        if (async_error != ncclSuccess && async_error != ncclInProgress) {
          throw_nccl_error(async_error, "ncclCommGetAsyncError (asynchronous failure)", __FILE__,
                           __LINE__);
        }
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw CaseTimeout(fmt::format("{} did not finish within {:g} s", waiting_for, timeout_s));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

}  // namespace collbench
