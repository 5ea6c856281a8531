// Communicator creation, for one process driving several GPUs or one GPU per process, optionally
// with a CTA limit.
#include "session/communicators.hpp"

#include <nccl.h>

#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench::dp {

std::vector<NcclCommunicator> create_step_communicators(int ranks, int max_ctas) {
  auto range = named_range("communicator init " + std::to_string(ranks) + "r", 0x808080);
  std::vector<int> devices;
  for (int device = 0; device < ranks; ++device) devices.push_back(device);
  if (max_ctas <= 0) return create_single_process_communicators(devices);

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.maxCTAs = max_ctas;
  return create_single_process_communicators(devices, &config);
}

std::vector<NcclCommunicator> split_step_communicators(ProcessGroup& group, int ranks,
                                                       int max_ctas) {
  auto range = named_range("communicator init " + std::to_string(ranks) + "r", 0x808080);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.maxCTAs = max_ctas;
  std::optional<NcclCommunicator> mine = group.split_first(ranks, max_ctas > 0 ? &config : nullptr);
  std::vector<NcclCommunicator> owned;
  if (mine) owned.push_back(std::move(*mine));
  return owned;
}

}  // namespace collbench::dp
