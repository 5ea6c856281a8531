// NCCL all-reduces of host values through small device buffers.
#include "runtime/host_collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_group.hpp"

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

bool all_ranks_agree(const std::vector<RankContext>& ranks, bool ok,
                     const std::function<void()>& wait_until_done) {
  const std::vector<std::vector<std::int32_t>> flags(ranks.size(), {ok ? 1 : 0});
  return all_reduce_host_values<std::int32_t>(ranks, flags, ncclMin, wait_until_done).front() == 1;
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

}  // namespace collbench
