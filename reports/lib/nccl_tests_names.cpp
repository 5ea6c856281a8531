// The table of nccl-tests' perf binaries and the name mappings of types and reductions.
#include "reports/nccl_tests_names.hpp"

#include <fmt/format.h>

#include <array>

#include "reports/schema.hpp"

namespace collbench::report {
namespace {

// nccl-tests' src/*.cu, one testColl each, against bench/core/collective_registry.cpp.
constexpr std::array<NcclTestsCollective, 10> kCollectives = {{
    {"all_reduce_perf", "AllReduce", "all_reduce", true, false},
    {"all_gather_perf", "AllGather", "all_gather", false, false},
    {"reduce_scatter_perf", "ReduceScatter", "reduce_scatter", true, false},
    {"broadcast_perf", "Broadcast", "broadcast", false, true},
    {"reduce_perf", "Reduce", "reduce", true, true},
    {"alltoall_perf", "AlltoAll", "alltoall", false, false},
    {"alltoallv_perf", "AlltoAllv", "alltoallv", false, false},
    {"gather_perf", "Gather", "gather", false, true},
    {"scatter_perf", "Scatter", "scatter", false, true},
    {"sendrecv_perf", "SendRecv", "sendrecv", false, false},
}};

template <std::size_t N>
bool is_one_of(std::string_view name, const std::array<const char*, N>& names) {
  for (const char* known : names) {
    if (name == known) return true;
  }
  return false;
}

}  // namespace

const NcclTestsCollective* find_nccl_tests_collective(std::string_view name) {
  constexpr std::string_view kMpiSuffix = "_mpi";  // packaged MPI builds name their binaries so
  for (const NcclTestsCollective& collective : kCollectives) {
    const std::string_view program = collective.program;
    if (name == program || name == collective.test_name) return &collective;
    if (name.size() == program.size() + kMpiSuffix.size() &&
        name.substr(0, program.size()) == program && name.substr(program.size()) == kMpiSuffix) {
      return &collective;
    }
  }
  return nullptr;
}

std::string nccl_tests_programs() {
  std::string names;
  for (const NcclTestsCollective& collective : kCollectives) {
    names += (names.empty() ? "" : ", ") + std::string(collective.program);
  }
  return names;
}

std::optional<std::string> collbench_dtype_of(std::string_view nccl_tests_type) {
  // nccl-tests' test_typenames (src/common.cu) are collbench's names, but for fp8.
  if (is_one_of(nccl_tests_type, kKnownDtypes)) return std::string(nccl_tests_type);
  return std::nullopt;
}

std::optional<std::string> collbench_redop_of(std::string_view nccl_tests_redop) {
  if (nccl_tests_redop != "none" && is_one_of(nccl_tests_redop, kKnownRedops)) {
    return std::string(nccl_tests_redop);
  }
  return std::nullopt;
}

std::string nccl_version_text(int code) {
  // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z from 2.9 on, X * 1000 + Y * 100 + Z before.
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
}

}  // namespace collbench::report
