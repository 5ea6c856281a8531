// Test tool: writes the report rows of the made-up replayed job (replayed_job.hpp) as
// collbench_replay run --csv writes them, so that collreport can be run on two replays without a
// GPU. Usage: replay_rows_tool OUT.csv [SLOWDOWN [PROTOCOL]]: SLOWDOWN (e.g. 1.2) times the
// bfloat16 all_reduce; PROTOCOL names the combination replayed (--nccl-proto's value, as the
// rows' config names it).
#include <cstdio>
#include <exception>
#include <string>

#include "plan/replay_combinations.hpp"
#include "plan/replay_figures.hpp"
#include "replayed_job.hpp"
#include "report/replay_rows.hpp"
#include "reports/csv_writer.hpp"

int main(int argc, char** argv) {
  using namespace collbench::replay;
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: replay_rows_tool OUT.csv [SLOWDOWN [PROTOCOL]]\n");
    return 2;
  }
  try {
    const WorkloadOps workload = testing::mixed_job();
    testing::FabricatedTiming timing;
    if (argc >= 3) timing.slowdown = std::stod(argv[2]);
    ReplayCombination combination;
    if (argc == 4) combination.communicators.nccl_proto = argv[3];
    const ReplayFigures figures =
        replay_figures(workload, testing::fabricated_results(workload, timing));
    ReplayRunInfo info;
    info.workload_name = workload_name({workload.path});
    info.origin.host = "node1";
    info.origin.gpu_name = "NVIDIA H200";
    info.origin.nccl_version = "2.28.3";
    info.warmup = 5;
    info.iters = timing.iterations;
    info.nccl_config = combination.config();
    collbench::report::CsvWriter writer(argv[1]);
    for (const auto& row : replay_report_rows(workload, figures, info, "2026-11-22T14:27:21Z"))
      writer.write(row);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "replay_rows_tool: %s\n", error.what());
    return 1;
  }
  return 0;
}
