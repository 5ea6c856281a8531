// What the peer-to-peer hand-built algorithms share in their tunings besides their own knobs: how
// their PeerGroup waits and places ranks, how their kernels are launched, and the settings that
// set them (declared by each algorithm that takes them, bound to its own tuning's fields).
#pragma once

#include <string>

#include "algorithms/tuning_settings.hpp"
#include "core/algorithm_settings.hpp"

namespace collbench {

// What an algorithm's PeerGroup is made with (handbuilt_peer_group.hpp).
struct PeerTuning {
  double timeout_s = 30;  // a kernel waiting longer on one peer gives up; 0: never
  // Tests only: let several ranks share a GPU, to run rank counts above the GPUs there are. Every
  // rank's grid must then fit on the GPU beside the others' (small CTA counts).
  bool allow_shared_gpus = false;
};

// How a peer-kernel algorithm enqueues its kernel when the caller's stream is not being captured.
enum class PeerKernelLaunch {
  // Through a one-kernel graph instantiated at prepare(): cheaper to launch than the kernel
  // itself at small sizes (kernels/README.md, oneshot).
  graph,
  direct,  // a kernel launch every time
};

SettingSpec peer_timeout_spec(double default_s);
SettingSpec peer_launch_spec(PeerKernelLaunch default_launch);
PeerKernelLaunch peer_launch_of(const SettingValues& values);

// "peer_timeout_s": sets the tuning's `peer.timeout_s`.
template <typename Tuning>
TuningSetting<Tuning> peer_timeout_setting() {
  return {peer_timeout_spec(Tuning{}.peer.timeout_s),
          [](Tuning& tuning, const SettingValues& values) {
            tuning.peer.timeout_s = values.real("peer_timeout_s");
          }};
}

// "peer_launch": sets the tuning's `launch`.
template <typename Tuning>
TuningSetting<Tuning> peer_launch_setting() {
  return {peer_launch_spec(Tuning{}.launch), [](Tuning& tuning, const SettingValues& values) {
            tuning.launch = peer_launch_of(values);
          }};
}

}  // namespace collbench
