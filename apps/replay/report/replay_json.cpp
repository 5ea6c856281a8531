// The replay's JSON document.
#include "report/replay_json.hpp"

#include "report/op_columns.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

json time_json(const TimeStats& time) {
  json object = {{"p50_us", time.p50_us},
                 {"mean_us", time.mean_us},
                 {"min_us", time.min_us},
                 {"max_us", time.max_us},
                 {"samples", time.samples}};
  object["p50_lo_us"] = time.has_interval() ? json(time.p50_lo_us) : json(nullptr);
  object["p50_hi_us"] = time.has_interval() ? json(time.p50_hi_us) : json(nullptr);
  return object;
}

json optional_json(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json run_json(const WorkloadOps& workload, const ReplayRunInfo& info) {
  const WorkloadHeader& header = workload.header;
  const report::RunOrigin& origin = info.origin;
  return {
      {"workload", workload.path},
      {"source", header.source},
      {"world_size", header.world_size},
      {"communicators", workload.communicators.count()},
      {"rescaled_from", header.rescaled ? json(header.rescaled->from_world_size) : json(nullptr)},
      {"nccl_recorded", header.nccl_version ? json(*header.nccl_version) : json(nullptr)},
      {"nccl_replayed", origin.nccl_version},
      {"host", origin.host},
      {"gpu", origin.gpu_name},
      {"driver", origin.driver},
      {"cuda_runtime", origin.cuda_runtime},
      {"collbench_version", origin.collbench_version},
      {"launch_mode", origin.launch_mode},
      {"nodes", origin.nodes},
      {"warmup", info.warmup},
      {"iters", info.iters},
      {"gaps", info.gaps},
      {"check", info.check},
      {"gated", info.gated},
      {"ungated_reason", info.gated ? json(nullptr) : json(info.ungated_reason)},
      {"op_times", info.no_kernel_trace.empty() ? "kernels" : "events"},
      {"no_kernel_trace",
       info.no_kernel_trace.empty() ? json(nullptr) : json(info.no_kernel_trace)},
      {"assumptions", header.assumptions}};
}

json kinds_json(const ReplayFigures& figures) {
  json kinds = json::array();
  for (const OpKindFigures& kind : figures.kinds) {
    kinds.push_back(
        {{"communicator", kind.comm},
         {"op", kind.op},
         {"dtype", std::string(name_of(kind.dtype))},
         {"redop", kind.redop ? json(std::string(name_of(*kind.redop))) : json(nullptr)},
         {"calls", kind.calls},
         {"bytes", kind.bytes},
         {"time_per_call", time_json(kind.time_per_call)},
         {"busbw_gbps", kind.busbw_gbps},
         {"recorded_us_per_call", optional_json(kind.recorded_us_per_call)},
         {"arrival_skew_per_call", time_json(kind.arrival.skew_per_call)},
         {"op_time_without_wait_per_call", time_json(kind.arrival.op_per_call)},
         {"recorded_skew_us_per_call", optional_json(kind.arrival.recorded_skew_us)},
         {"recorded_op_us_per_call", optional_json(kind.arrival.recorded_op_us)}});
  }
  return kinds;
}

json ranks_json(const ReplayFigures& figures) {
  json ranks = json::array();
  for (const RankWindowFigures& rank : figures.ranks) {
    ranks.push_back({{"rank", rank.rank},
                     {"window", time_json(rank.window)},
                     {"window_timing_ops", time_json(rank.window_timing_ops)},
                     {"ops_summed", time_json(rank.op_time_sum)},
                     {"some_op_running", time_json(rank.busy)},
                     {"recorded_window_us", optional_json(rank.recorded_window_us)}});
  }
  return ranks;
}

// One combination's: its name and config, and its figures.
json combination_json(const WorkloadOps& workload, const CombinationRun& run) {
  const ReplayFigures& figures = run.figures;
  json document = {{"name", run.combination.name()},
                   {"config", run.combination.config()},
                   {"window", time_json(figures.window)},
                   {"window_timing_ops", time_json(figures.window_timing_ops)},
                   {"communicator_ops", kinds_json(figures)},
                   {"ranks", ranks_json(figures)}};
  json& ops = document["ops"] = json::array();
  for (std::size_t rank = 0; rank < workload.by_rank.size(); ++rank) {
    for (std::size_t ordinal = 0; ordinal < workload.by_rank[rank].size(); ++ordinal) {
      ops.push_back(
          op_json({workload, workload.by_rank[rank][ordinal], figures.ops[rank][ordinal]}));
    }
  }
  return document;
}

json choice_json(const CombinationChoice& choice) {
  return {{"what", choice.what},
          {"fastest", choice.fastest_name},
          {"fastest_time", time_json(choice.fastest_time)},
          {"default_time", time_json(choice.default_time)},
          {"speedup", choice.speedup},
          {"within_noise", choice.within_noise}};
}

json summary_json(const CombinationSummary& summary) {
  json rows = json::array();
  for (const CombinationChoice& row : summary.rows) rows.push_back(choice_json(row));
  return {{"communicator_ops", rows}, {"window", choice_json(summary.window)}};
}

}  // namespace

json replay_json(const WorkloadOps& workload, const std::vector<CombinationRun>& runs,
                 const ReplayRunInfo& info) {
  json combinations = json::array();
  for (const CombinationRun& run : runs) combinations.push_back(combination_json(workload, run));
  return {{"run", run_json(workload, info)},
          {"combinations", combinations},
          {"summary", summary_json(summarize_combinations(runs))}};
}

}  // namespace collbench::replay
