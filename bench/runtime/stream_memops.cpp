// Batches of stream memory operations through cuStreamBatchMemOp.
#include "runtime/stream_memops.hpp"

#include <cuda.h>
#include <fmt/format.h>

#include "core/errors.hpp"
#include "runtime/driver_entry_point.hpp"

namespace collbench {
namespace {

using BatchMemOpFunction = CUresult (*)(CUstream stream, unsigned int count,
                                        CUstreamBatchMemOpParams* operations, unsigned int flags);

// driver_entry_point asks for the 12.0 ABI: the v2 memory operations, on every platform without
// a module option.
BatchMemOpFunction batch_mem_op_function() {
  static const auto function = driver_function<BatchMemOpFunction>("cuStreamBatchMemOp");
  return function;
}

// The driver takes at most 255 operations per batch; far more than any rank count here.
constexpr std::size_t kMaxBatch = 255;

void enqueue_batch(cudaStream_t stream, const std::vector<std::uint32_t*>& flags,
                   std::uint32_t value, CUstreamBatchMemOpType operation, int rank) {
  if (flags.empty()) return;
  if (flags.size() > kMaxBatch) {
    throw std::invalid_argument(
        fmt::format("{} flag operations in one batch (at most {})", flags.size(), kMaxBatch));
  }
  std::vector<CUstreamBatchMemOpParams> operations(flags.size());
  for (std::size_t i = 0; i < flags.size(); ++i) {
    CUstreamBatchMemOpParams& op = operations[i];
    op = {};
    op.operation = operation;
    if (operation == CU_STREAM_MEM_OP_WAIT_VALUE_32) {
      op.waitValue.address = reinterpret_cast<CUdeviceptr>(flags[i]);
      op.waitValue.value = value;
      op.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    } else {
      op.writeValue.address = reinterpret_cast<CUdeviceptr>(flags[i]);
      op.writeValue.value = value;
      op.writeValue.flags =
          CU_STREAM_WRITE_VALUE_DEFAULT;  // fenced after the stream's earlier work
    }
  }
  const CUresult status = batch_mem_op_function()(stream, static_cast<unsigned>(operations.size()),
                                                  operations.data(), 0);
  if (status != CUDA_SUCCESS) {
    throw GpuError(
        fmt::format("cuStreamBatchMemOp({} {} of value {}, first flag {}) failed with "
                    "CUresult {} (rank {})",
                    flags.size(), operation == CU_STREAM_MEM_OP_WAIT_VALUE_32 ? "waits" : "writes",
                    value, static_cast<const void*>(flags.front()), static_cast<int>(status), rank),
        false);
  }
}

}  // namespace

void enqueue_flag_writes(cudaStream_t stream, const std::vector<std::uint32_t*>& flags,
                         std::uint32_t value, int rank) {
  enqueue_batch(stream, flags, value, CU_STREAM_MEM_OP_WRITE_VALUE_32, rank);
}

void enqueue_flag_waits(cudaStream_t stream, const std::vector<std::uint32_t*>& flags,
                        std::uint32_t value, int rank) {
  enqueue_batch(stream, flags, value, CU_STREAM_MEM_OP_WAIT_VALUE_32, rank);
}

}  // namespace collbench
