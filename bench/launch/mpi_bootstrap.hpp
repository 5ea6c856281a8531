// The little collbench asks of MPI: start and stop it, hand NCCL's unique id from rank 0 to every
// process, and swap a few bytes after a timeout. Without COLLBENCH_WITH_MPI these throw, saying
// MPI was not built in.
#pragma once

#include <nccl.h>

#include <optional>
#include <vector>

namespace collbench {

bool mpi_built_in();
// MPI_Init; returns the world rank and size MPI reports.
void mpi_start(int& world_rank, int& world_size);
void mpi_stop() noexcept;
// Rank 0 calls ncclGetUniqueId and broadcasts it; every rank returns the same id.
ncclUniqueId mpi_share_unique_id(int world_rank);
// Sends `mine` to every other process among world ranks [0, processes) and receives theirs (each
// as long as `mine`), never waiting more than `wait_s`: index = world rank, empty where nothing
// came in time; this process's own entry is `mine`. Point to point, so one silent process hides
// only itself; unanswered requests are left behind (call it at most once, when a run is over).
std::vector<std::optional<std::vector<char>>> mpi_exchange_bounded(const std::vector<char>& mine,
                                                                   int processes, double wait_s);

}  // namespace collbench
