// The declarations of the settings every peer-to-peer hand-built algorithm shares.
#include "algorithms/peer_tuning.hpp"

#include <fmt/format.h>

namespace collbench {
namespace {

// The names --algo, the environment and the CSV config column use.
std::string name_of(PeerKernelLaunch launch) {
  return launch == PeerKernelLaunch::graph ? "graph" : "direct";
}

}  // namespace

SettingSpec peer_timeout_spec(double default_s) {
  SettingSpec spec =
      number_setting("peer_timeout_s", SettingKind::seconds, fmt::format("{:g}", default_s), 0,
                     86400, "a kernel waiting longer on one peer gives up (0: never)");
  spec.measured = false;
  return spec;
}

SettingSpec peer_launch_spec(PeerKernelLaunch default_launch) {
  return choice_setting(
      "peer_launch", {name_of(PeerKernelLaunch::graph), name_of(PeerKernelLaunch::direct)},
      name_of(default_launch),
      "launched normally, each kernel goes through a one-kernel graph or is launched itself");
}

PeerKernelLaunch peer_launch_of(const SettingValues& values) {
  return values.text("peer_launch") == name_of(PeerKernelLaunch::graph) ? PeerKernelLaunch::graph
                                                                        : PeerKernelLaunch::direct;
}

}  // namespace collbench
