// The combinations of the communicator axes (--nccl-algo, --nccl-proto, --nccl-max-ctas,
// --register: core/communicator_settings.hpp) that `run` replays the workload under, one after
// another, and how each is named in the rows' config: as collbench writes these settings, so that
// `collreport compare --across nccl_proto` pairs the rows of two combinations.
#pragma once

#include <string>
#include <vector>

#include "core/communicator_settings.hpp"

namespace collbench::replay {

struct ReplayCombination {
  CommunicatorSettings communicators;  // never split: the workload's communicators are its own
  BufferRegistration registration = BufferRegistration::none;

  // "nccl_proto=LL;register=local": the config column's parts, as collbench's; "" at the
  // defaults.
  std::string config() const;
  // config(), or "default" at the defaults: what the console and the summary call it.
  std::string name() const;
};

// Registration outermost (one mode's buffers, then the next's, as collbench's sweep), then NCCL's
// axes as nccl_combinations orders them; the first is the default the summary compares against.
std::vector<ReplayCombination> replay_combinations(const CommunicatorAxes& axes);

}  // namespace collbench::replay
