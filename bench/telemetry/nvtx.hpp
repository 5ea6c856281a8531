// NVTX ranges in collbench's own domain, so an Nsight Systems trace reads like the sweep:
// one range per case (coloured by operation, size as payload) holding "warmup", "timed" and
// "check"; setup ranges for communicator creation and allocation. NCCL's own ranges nest inside.
#pragma once

#include <cstdint>
#include <nvtx3/nvtx3.hpp>
#include <string>

namespace collbench {

struct collbench_nvtx_domain {
  static constexpr const char* name{"collbench"};
};

using NvtxRange = nvtx3::scoped_range_in<collbench_nvtx_domain>;

// Fixed range names, registered once with the tool.
namespace nvtx_names {
struct warmup {
  static constexpr const char* message{"warmup"};
};
struct timed {
  static constexpr const char* message{"timed"};
};
struct check {
  static constexpr const char* message{"check"};
};
struct allocate {
  static constexpr const char* message{"allocate"};
};
struct graph_capture {
  static constexpr const char* message{"graph capture"};
};
}  // namespace nvtx_names

template <typename Name>
NvtxRange fixed_range(std::uint32_t rgb = 0x808080, std::uint64_t payload = 0) {
  const auto& text = nvtx3::registered_string_in<collbench_nvtx_domain>::get<Name>();
  return NvtxRange{nvtx3::event_attributes{
      text,
      nvtx3::rgb{static_cast<std::uint8_t>(rgb >> 16), static_cast<std::uint8_t>(rgb >> 8),
                 static_cast<std::uint8_t>(rgb)},
      nvtx3::payload{payload}}};
}

// A range with a run-time name (cases, "communicator init 4r").
inline NvtxRange named_range(const std::string& name, std::uint32_t rgb,
                             std::uint64_t payload = 0) {
  return NvtxRange{nvtx3::event_attributes{
      name,
      nvtx3::rgb{static_cast<std::uint8_t>(rgb >> 16), static_cast<std::uint8_t>(rgb >> 8),
                 static_cast<std::uint8_t>(rgb)},
      nvtx3::payload{payload}}};
}

}  // namespace collbench
