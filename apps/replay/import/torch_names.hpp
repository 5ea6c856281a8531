// PyTorch's names for what its profiler (record_param_comms) and Flight Recorder record: its
// collective names, both spellings ("allreduce", "all_reduce"), with how NCCL's count follows from
// the input and output element totals; its dtype names ("Float", "BFloat16"); its rank lists.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data_type.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

// How NCCL's count follows from a rank's input and output element totals.
enum class TorchCount {
  input,             // all_reduce, broadcast, reduce, send, recv
  input_gathered,    // all_gather: count = input; output = input x ranks
  output_scattered,  // reduce_scatter: count = output; input = output x ranks
  input_at_root,     // gather: count = input
  output_at_root,    // scatter: count = output
  exchanged,         // alltoall: count = input / ranks
  one_float,         // barrier: ProcessGroupNCCL all-reduces one float
};

struct TorchCollective {
  ReplayOp op;
  TorchCount count;
  bool coalesced;  // several tensors in one call: replayed as one op of all their elements
};

std::optional<TorchCollective> find_torch_collective(std::string_view name);

// Nothing for a type collbench does not replay (Short, the fp8 types ...).
std::optional<DataType> data_type_of_torch(std::string_view name);

// NCCL's count of `collective` from the element totals, on `ranks` ranks, into op.count (op.dtype
// for a barrier). Throws UsageError at `where` when the totals do not fit the collective.
void set_torch_count(const TorchCollective& collective, std::uint64_t input_elements,
                     std::uint64_t output_elements, int ranks, const std::string& where,
                     WorkloadOp& op);

// A rank list as PyTorch writes it: "[0, 1, 2, 3]" (a string) or a JSON array.
std::vector<std::int64_t> torch_int_list(const nlohmann::json& value, std::string_view field,
                                         const std::string& where);

}  // namespace collbench::replay
