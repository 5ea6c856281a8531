// The combinations of the communicator axes (--nccl-algo, --nccl-proto, --nccl-max-ctas,
// --register: core/communicator_settings.hpp) and of the all-reduce implementation (--algo: NCCL's
// or a hand-built one, bench/algorithms) that `run` replays the workload under, one after another,
// and how each is named in the rows' config: as collbench writes these settings, so that
// `collreport compare --across nccl_proto` pairs the rows of two combinations.
#pragma once

#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/communicator_settings.hpp"

namespace collbench::replay {

struct ReplayCombination {
  CommunicatorSettings communicators;  // never split: the workload's communicators are its own
  BufferRegistration registration = BufferRegistration::none;
  // What runs the workload's all_reduce ops: NCCL's (entry null, or the "nccl" entry) or a
  // hand-built algorithm with its settings; every other op stays NCCL's.
  AlgorithmChoice all_reduce;
  // --issue graph: each rank's iteration captured once into a CUDA graph and launched per
  // iteration; otherwise its thread issues every op of every iteration.
  bool graph = false;

  bool handbuilt_all_reduce() const { return all_reduce.entry && all_reduce.name() != "nccl"; }
  // "nccl_proto=LL;algo=oneshot;register=local;issue=graph": the config column's parts, as
  // collbench's (a hand-built algorithm's settings that differ from their defaults after its name);
  // "" at the defaults.
  std::string config() const;
  // config(), or "default" at the defaults: what the console and the summary call it.
  std::string name() const;
};

// Registration outermost (one mode's buffers, then the next's, as collbench's sweep), then the
// all-reduce implementations in `all_reduce_algos`' order (none: NCCL's alone), then NCCL's axes as
// nccl_combinations orders them, then the issue modes in `graphs`' order (none: direct alone); the
// first is the default the summary compares against.
std::vector<ReplayCombination> replay_combinations(
    const CommunicatorAxes& axes, const std::vector<AlgorithmChoice>& all_reduce_algos = {},
    const std::vector<bool>& graphs = {});

}  // namespace collbench::replay
