// The little collbench asks of MPI: start and stop it, and hand NCCL's unique id from rank 0 to
// every process. Without COLLBENCH_WITH_MPI these throw, saying MPI was not built in.
#pragma once

#include <nccl.h>

namespace collbench {

bool mpi_built_in();
// MPI_Init; returns the world rank and size MPI reports.
void mpi_start(int& world_rank, int& world_size);
void mpi_stop() noexcept;
// Rank 0 calls ncclGetUniqueId and broadcasts it; every rank returns the same id.
ncclUniqueId mpi_share_unique_id(int world_rank);

}  // namespace collbench
