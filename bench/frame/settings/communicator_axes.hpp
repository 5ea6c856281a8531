// The communicator axes a user sweeps to make communication cheaper, declared once for every binary
// that sweeps them (collbench per case, collbench_replay per replay of a whole workload):
// --nccl-algo, --nccl-proto, --nccl-max-ctas and --register, into core's CommunicatorAxes, and
// the rule NCCL imposes on them (NCCL_MAX_CTAS in the environment overrides ncclConfig_t).
#pragma once

#include <string>
#include <vector>

#include "core/communicator_settings.hpp"
#include "frame/settings/setting.hpp"

namespace collbench {

// The four settings; `scope` ends --nccl-algo's help: what the combinations apply to in this
// binary, and what becomes of one NCCL refuses.
std::vector<Setting<CommunicatorAxes>> communicator_axis_settings(const std::string& scope);

// Throws UsageError when --nccl-max-ctas sweeps anything but NCCL's default while NCCL_MAX_CTAS is
// set: NCCL applies the variable after ncclConfig_t (src/init.cc), so the sweep would not be what
// it says.
void refuse_max_ctas_beside_environment(const CommunicatorAxes& axes);

}  // namespace collbench
