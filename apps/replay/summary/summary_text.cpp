// Summary printing.
#include "summary/summary_text.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/byte_size.hpp"

namespace collbench::replay {
namespace {

void print_origin(const WorkloadSummary& summary, std::ostream& out) {
  const WorkloadHeader& header = summary.header;
  fmt::print(out, "workload from {} ({} file{}), NCCL {}, {} ranks, {} ops\n", header.source,
             header.source_files.size(), header.source_files.size() == 1 ? "" : "s",
             header.nccl_version.value_or("unknown"), header.world_size, summary.ops);
  if (header.rescaled) {
    fmt::print(out, "rescaled from {} ranks to {}\n", header.rescaled->from_world_size,
               header.rescaled->to_world_size);
  }
  for (const auto& [name, value] : header.nccl_env) fmt::print(out, "  {}={}\n", name, value);
  fmt::print(out, "assumed:\n");
  for (const std::string& note : header.assumptions) fmt::print(out, "  - {}\n", note);
}

void print_communicators(const WorkloadSummary& summary, std::ostream& out) {
  fmt::print(out, "communicators:\n");
  for (const Communicator& communicator : summary.communicators.all()) {
    fmt::print(out, "  {}: {}\n", summary.communicators.describe(communicator.id),
               fmt::join(communicator.names, ", "));
  }
}

void print_table(const WorkloadSummary& summary, std::ostream& out) {
  fmt::print(out, "{:>6}  {:<14} {:>10} {:>12} {:>12} {:>14} {:>12}\n", "comm", "op", "calls",
             "bytes/call", "bytes", "GPU time (us)", "mean (us)");
  for (const auto& [key, totals] : summary.by_communicator_op) {
    const std::string gpu = totals.timed_calls > 0 ? fmt::format("{:.1f}", totals.gpu_us) : "-";
    const std::string mean =
        totals.timed_calls > 0
            ? fmt::format("{:.2f}", totals.gpu_us / static_cast<double>(totals.timed_calls))
            : "-";
    fmt::print(out, "{:>6}  {:<14} {:>10} {:>12} {:>12} {:>14} {:>12}\n", key.first,
               name_of(key.second), totals.calls, format_byte_size(totals.bytes / totals.calls),
               format_byte_size(totals.bytes), gpu, mean);
  }
  if (summary.first_us) {
    fmt::print(out, "recorded times: {:.1f} us from the first to the last\n",
               *summary.last_us - *summary.first_us);
  } else {
    fmt::print(out, "recorded times: none\n");
  }
}

}  // namespace

void print_summary(const WorkloadSummary& summary, std::ostream& out) {
  print_origin(summary, out);
  print_communicators(summary, out);
  print_table(summary, out);
}

}  // namespace collbench::replay
