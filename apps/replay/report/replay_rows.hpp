// The replay's --csv: its figures as rows of the report schema (reports/README.md), so that
// collreport summarizes, merges, plots and compares two replays as it does collbench's runs. One
// row per communicator, op, dtype and reduction (the calls' median time per call and its interval,
// as a collective's row), and one replay_window row for the whole window of an iteration (the
// slowest rank's) with its concurrency figures in `extra`.
#pragma once

#include <string>
#include <vector>

#include "plan/replay_figures.hpp"
#include "report/replay_run_info.hpp"
#include "reports/report_row.hpp"

namespace collbench::replay {

// The name that identifies a workload in the rows' config: the first input's file name without a
// ".jsonl" ending, "+N" more when several sources were replayed (';' and '=' written '|').
std::string workload_name(const std::vector<std::string>& inputs);

// "0-7", "0-56/8", "1,4": ranks ascending or not, runs of three or more with one step written
// first-last (/step when not 1), so a large communicator's list stays one short field.
std::string rank_list_text(const std::vector<int>& ranks);

// "replay=NAME;comm=ID;comm_ranks=0,2" (NAME: info.workload_name) then the NCCL settings and gaps=1
// under --gaps: the same text for the same communicator in two replays of the workload, so that
// compare pairs the rows.
std::string kind_config(const WorkloadOps& workload, const OpKindFigures& kind,
                        const ReplayRunInfo& info);

report::ReportRow kind_report_row(const WorkloadOps& workload, const OpKindFigures& kind,
                                  const ReplayRunInfo& info, const std::string& timestamp);
report::ReportRow window_report_row(const WorkloadOps& workload, const ReplayFigures& figures,
                                    const ReplayRunInfo& info, const std::string& timestamp);

// Every row of the run: the communicator-op rows in the figures' order, then the window's.
std::vector<report::ReportRow> replay_report_rows(const WorkloadOps& workload,
                                                  const ReplayFigures& figures,
                                                  const ReplayRunInfo& info,
                                                  const std::string& timestamp);

}  // namespace collbench::replay
