// PyTorch's collective and dtype names (c10d's OpType strings, record_param_comms names and
// c10::ScalarType names).
#include "import/torch_names.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <utility>

#include "reports/printable.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

struct NamedCollective {
  std::string_view name;
  TorchCollective collective;
};

constexpr std::array<NamedCollective, 29> kCollectives = {{
    {"allreduce", {ReplayOp::all_reduce, TorchCount::input, false}},
    {"all_reduce", {ReplayOp::all_reduce, TorchCount::input, false}},
    {"allreduce_coalesced", {ReplayOp::all_reduce, TorchCount::input, true}},
    {"all_reduce_coalesced", {ReplayOp::all_reduce, TorchCount::input, true}},
    {"barrier", {ReplayOp::all_reduce, TorchCount::one_float, false}},
    {"all_reduce_barrier", {ReplayOp::all_reduce, TorchCount::one_float, false}},
    {"broadcast", {ReplayOp::broadcast, TorchCount::input, false}},
    {"_broadcast_oop", {ReplayOp::broadcast, TorchCount::input, false}},
    {"reduce", {ReplayOp::reduce, TorchCount::input, false}},
    {"_reduce_oop", {ReplayOp::reduce, TorchCount::input, false}},
    {"allgather", {ReplayOp::all_gather, TorchCount::input_gathered, false}},
    {"all_gather", {ReplayOp::all_gather, TorchCount::input_gathered, false}},
    {"_allgather_base", {ReplayOp::all_gather, TorchCount::input_gathered, false}},
    {"_all_gather_base", {ReplayOp::all_gather, TorchCount::input_gathered, false}},
    {"allgather_coalesced", {ReplayOp::all_gather, TorchCount::input_gathered, true}},
    {"allgather_into_tensor_coalesced", {ReplayOp::all_gather, TorchCount::input_gathered, true}},
    {"reduce_scatter", {ReplayOp::reduce_scatter, TorchCount::output_scattered, false}},
    {"_reduce_scatter_base", {ReplayOp::reduce_scatter, TorchCount::output_scattered, false}},
    {"reduce_scatter_tensor_coalesced",
     {ReplayOp::reduce_scatter, TorchCount::output_scattered, true}},
    {"all_to_all", {ReplayOp::alltoall, TorchCount::exchanged, false}},
    {"all_to_allv", {ReplayOp::alltoall, TorchCount::exchanged, false}},
    {"alltoall", {ReplayOp::alltoall, TorchCount::exchanged, false}},
    {"alltoall_base", {ReplayOp::alltoall, TorchCount::exchanged, false}},
    {"gather", {ReplayOp::gather, TorchCount::input_at_root, false}},
    {"scatter", {ReplayOp::scatter, TorchCount::output_at_root, false}},
    {"send", {ReplayOp::send, TorchCount::input, false}},
    {"recv", {ReplayOp::recv, TorchCount::input, false}},
    {"recv_any_source", {ReplayOp::recv, TorchCount::input, false}},
    {"_allreduce_sparse", {ReplayOp::all_reduce, TorchCount::input, false}},
}};

constexpr std::array<std::pair<std::string_view, DataType>, 11> kTypes = {{
    {"Float", DataType::float32},
    {"Double", DataType::float64},
    {"Half", DataType::half},
    {"BFloat16", DataType::bfloat16},
    {"Long", DataType::int64},
    {"Int", DataType::int32},
    {"Char", DataType::int8},
    {"Byte", DataType::uint8},
    {"Bool", DataType::uint8},  // ProcessGroupNCCL sends bool as ncclUint8
    {"UInt32", DataType::uint32},
    {"UInt64", DataType::uint64},
}};

}  // namespace

std::optional<TorchCollective> find_torch_collective(std::string_view name) {
  for (const NamedCollective& named : kCollectives) {
    if (named.name == name) return named.collective;
  }
  return std::nullopt;
}

std::optional<DataType> data_type_of_torch(std::string_view name) {
  for (const auto& [torch_name, type] : kTypes) {
    if (torch_name == name) return type;
  }
  return std::nullopt;
}

void set_torch_count(const TorchCollective& collective, std::uint64_t input_elements,
                     std::uint64_t output_elements, int ranks, const std::string& where,
                     WorkloadOp& op) {
  const std::uint64_t n = static_cast<std::uint64_t>(ranks);
  const auto expect = [&](std::uint64_t got, std::uint64_t wanted, const char* what) {
    if (got != wanted) {
      throw_bad_input(where, fmt::format("{} of {} elements: its {} should be {} on {} ranks",
                                         name_of(op.op), op.count, what, wanted, ranks));
    }
  };
  switch (collective.count) {
    case TorchCount::input_gathered:
      op.count = input_elements;
      expect(output_elements, input_elements * n, "output");
      return;
    case TorchCount::output_scattered:
      op.count = output_elements;
      expect(input_elements, output_elements * n, "input");
      return;
    case TorchCount::output_at_root:
      op.count = output_elements;
      return;
    case TorchCount::exchanged:
      if (input_elements % n != 0) {
        throw_bad_input(where, fmt::format("all_to_all of {} elements does not split evenly over "
                                           "{} ranks, and the splits are not recorded",
                                           input_elements, ranks));
      }
      op.count = input_elements / n;
      return;
    case TorchCount::one_float:
      op.count = 1;
      op.dtype = DataType::float32;
      return;
    default:
      op.count = input_elements;
      return;
  }
}

std::vector<std::int64_t> torch_int_list(const nlohmann::json& value, std::string_view field,
                                         const std::string& where) {
  std::vector<std::int64_t> numbers;
  if (value.is_array()) {
    for (const auto& item : value) {
      if (!item.is_number_integer()) break;
      numbers.push_back(item.get<std::int64_t>());
    }
    if (numbers.size() == value.size()) return numbers;
  } else if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    const char* at = text.data();
    const char* end = text.data() + text.size();
    while (at < end) {
      if (*at == '[' || *at == ']' || *at == ',' || *at == ' ') {
        ++at;
        continue;
      }
      std::int64_t number = 0;
      const auto parsed = std::from_chars(at, end, number);
      if (parsed.ec != std::errc()) break;
      numbers.push_back(number);
      at = parsed.ptr;
    }
    if (at >= end) return numbers;
  }
  throw_bad_input(
      where, fmt::format("'{}' is {}, not a list of integers", field, show_value(value.dump())));
}

}  // namespace collbench::replay
