// nccl-tests' names in collbench's terms: its perf binaries (and their test names) as collbench
// ops, its data type and reduction names, its NCCL version codes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace collbench::report {

struct NcclTestsCollective {
  const char* program;    // the binary, "all_reduce_perf"
  const char* test_name;  // its testColl name, "AllReduce"
  const char* op;         // collbench's op, "all_reduce"
  bool reduces;           // redop applies; otherwise collbench writes "none"
  bool has_root;          // root applies; otherwise collbench writes -1
};

// The collective of a perf binary or test name: "all_reduce_perf", the MPI build's
// "all_reduce_perf_mpi", or "AllReduce"; nullptr for one collbench does not measure
// (hypercube_perf) or does not know.
const NcclTestsCollective* find_nccl_tests_collective(std::string_view name);
// The binaries it finds, for messages: "all_reduce_perf, all_gather_perf, ...".
std::string nccl_tests_programs();

// collbench's name of nccl-tests' data type (the same names for the ten both have); none for the
// fp8 types (f8e4m3, f8e5m2), which collbench does not measure.
std::optional<std::string> collbench_dtype_of(std::string_view nccl_tests_type);
// collbench's name of nccl-tests' reduction (sum, prod, max, min, avg); none for mulsum.
std::optional<std::string> collbench_redop_of(std::string_view nccl_tests_redop);

// NCCL_VERSION_CODE as text: 22803 -> "2.28.3" (2.9 and later), 2708 -> "2.7.8" (before).
std::string nccl_version_text(int code);

}  // namespace collbench::report
