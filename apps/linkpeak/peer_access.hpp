// Peer access from one GPU to another's memory (cudaDeviceEnablePeerAccess), owned for a scope.
#pragma once

namespace collbench::link_peak {

class PeerAccess {
 public:
  PeerAccess() = default;
  // Lets `device` read and write `peer`'s memory. Access that is already enabled (by another
  // owner) is used but left enabled afterwards. Throws GpuError when it cannot be enabled.
  PeerAccess(int device, int peer);
  ~PeerAccess();  // disables the access if this owner enabled it
  PeerAccess(PeerAccess&& other) noexcept;
  PeerAccess& operator=(PeerAccess&& other) noexcept;
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

 private:
  void reset() noexcept;
  int device_ = -1;
  int peer_ = -1;
  bool owned_ = false;
};

}  // namespace collbench::link_peak
