// Communicator creation, for one process driving several GPUs or one GPU per process, optionally
// with a CTA limit.
#include "communicators.hpp"

#include <nccl.h>

#include <optional>
#include <utility>

#include "runtime/cuda_resources.hpp"
#include "core/errors.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench::dp {

std::vector<NcclCommunicator> create_step_communicators(int ranks, int max_ctas) {
  auto range = named_range("communicator init " + std::to_string(ranks) + "r", 0x808080);
  std::vector<int> devices;
  for (int device = 0; device < ranks; ++device) devices.push_back(device);
  if (max_ctas <= 0) return create_single_process_communicators(devices);

  ncclUniqueId id;
  CB_NCCL_CHECK(ncclGetUniqueId(&id));
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.maxCTAs = max_ctas;
  // One thread initialises every rank: the calls must be grouped.
  CB_NCCL_CHECK(ncclGroupStart());
  for (int rank = 0; rank < ranks; ++rank) {
    ScopedDevice on(devices[rank], rank);
    CB_NCCL_CHECK(ncclCommInitRankConfig(&comms[rank], ranks, id, rank, &config));
  }
  CB_NCCL_CHECK(ncclGroupEnd());
  std::vector<NcclCommunicator> owned;
  for (int rank = 0; rank < ranks; ++rank) owned.emplace_back(comms[rank], devices[rank], rank);
  return owned;
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
