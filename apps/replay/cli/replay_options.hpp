// collbench_replay's command line: the subcommand (import, check, rescale, summary, run), its
// inputs and options, declared in one settings table (run's launch, timeout and report CSV: the
// frame's common flags; the communicator axes swept over a replay: the frame's declarations,
// collbench's) and checked so that every bad value is named in one line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/communicator_settings.hpp"
#include "core/data_type.hpp"
#include "frame/settings/common_flags.hpp"
#include "import/source_kind.hpp"
#include "run/replay_settings.hpp"

namespace collbench::replay {

enum class ReplayCommand { import, check, rescale, summary, run };

struct ReplayOptions {
  ReplayCommand command = ReplayCommand::summary;
  std::vector<std::string> inputs;  // sources, or one workload
  std::string output;               // import, rescale: -o
  std::optional<SourceKind> from;   // import, check: --from
  std::optional<ReduceOp> redop;    // import, check: --redop
  int ranks = 0;                    // rescale: --ranks
  ReplaySettings replay;            // run: -w, -n, --check, --gaps (--timeout: common.timeout_s)
  std::string json_path;            // run: --json
  std::string ops_csv_path;         // run: --ops-csv, one line per op of every rank
  CommonSettings common;            // run: --csv (report rows), --launcher, --timeout
  // run: --nccl-algo, --nccl-proto, --nccl-max-ctas, --register (collbench's declarations), their
  // "default" entries made what the user's NCCL_* variables set.
  CommunicatorAxes axes;
  // run: --algo, what runs the all_reduce ops ("nccl", hand-built ones with their settings), each
  // resolved against the algorithm registry; empty: NCCL's alone.
  std::vector<AlgorithmChoice> all_reduce_algos;
  // run: --issue, direct and/or graph (repeats dropped); empty: direct alone.
  std::vector<bool> graphs;
};

// Parses the arguments (args[0] is the program); throws UsageError with one line naming the bad
// value or the option that does not belong to the subcommand.
ReplayOptions parse_replay_options(const std::vector<std::string>& args);
std::string replay_help();

}  // namespace collbench::replay
