// MPI start/stop and the NCCL unique id broadcast (compiled to stubs without MPI).
#include "launch/mpi_bootstrap.hpp"

#include "core/errors.hpp"

#if COLLBENCH_WITH_MPI
#include <mpi.h>
#include <fmt/format.h>
#endif

namespace collbench {

#if COLLBENCH_WITH_MPI

namespace {
void check_mpi(int status, const char* call) {
  if (status != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(status, text, &length);
    throw GpuError(fmt::format("{} failed: {}", call, text), false);
  }
}
}  // namespace

bool mpi_built_in() { return true; }

void mpi_start(int& world_rank, int& world_size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) check_mpi(MPI_Init(nullptr, nullptr), "MPI_Init");
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &world_size), "MPI_Comm_size");
}

void mpi_stop() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

ncclUniqueId mpi_share_unique_id(int world_rank) {
  ncclUniqueId id{};
  if (world_rank == 0) CB_NCCL_CHECK(ncclGetUniqueId(&id));
  check_mpi(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast(ncclUniqueId)");
  return id;
}

#else

bool mpi_built_in() { return false; }
void mpi_start(int&, int&) { throw UsageError("this collbench was built without MPI (COLLBENCH_WITH_MPI=OFF)"); }
void mpi_stop() noexcept {}
ncclUniqueId mpi_share_unique_id(int) {
  throw UsageError("this collbench was built without MPI (COLLBENCH_WITH_MPI=OFF)");
}

#endif

}  // namespace collbench
