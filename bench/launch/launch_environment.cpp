// Launcher detection from environment variables.
#include "launch/launch_environment.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/errors.hpp"

namespace collbench {
namespace {

std::optional<int> read_int(const EnvironmentLookup& lookup, const char* name) {
  const char* text = lookup(name);
  if (!text || !*text) return std::nullopt;
  std::size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != std::string_view(text).size() || value < 0) {
    throw UsageError(
        fmt::format("environment variable {}='{}' is not a non-negative integer", name, text));
  }
  return value;
}

struct Variables {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  bool speaks_mpi;  // processes can call MPI_Init
};

// Launchers in order of preference: an MPI launcher's own variables first.
constexpr Variables kLaunchers[] = {
    {"OpenMPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", true},
    {"MPICH/PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", true},
    {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", true},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", false},
};

}  // namespace

std::string_view name_of(LaunchMode mode) {
  switch (mode) {
    case LaunchMode::mpi:
      return "mpi";
    case LaunchMode::env:
      return "env";
    default:
      return "single_process";
  }
}

void check_launcher_name(std::string_view requested) {
  if (requested != "auto" && requested != "single" && requested != "mpi" && requested != "env") {
    throw UsageError(
        fmt::format("--launcher '{}' is not one of auto, single, mpi, env", requested));
  }
}

LaunchEnvironment detect_launch_environment(const EnvironmentLookup& lookup,
                                            std::string_view requested, bool mpi_built) {
  check_launcher_name(requested);
  LaunchEnvironment environment;
  if (requested == "single") return environment;

  const Variables* found = nullptr;
  std::optional<int> rank, size;
  for (const Variables& candidate : kLaunchers) {
    rank = read_int(lookup, candidate.rank);
    size = read_int(lookup, candidate.size);
    if (rank && size) {
      found = &candidate;
      break;
    }
  }
  if (!found || *size <= 1) {
    if (requested == "auto") return environment;  // one process: it drives the visible GPUs itself
    throw UsageError(
        fmt::format("--launcher {}: no launcher variables with more than one process were found "
                    "(OMPI_COMM_WORLD_*, PMI_*, SLURM_*, or RANK/WORLD_SIZE/LOCAL_RANK)",
                    requested));
  }
  if (*rank >= *size) {
    throw UsageError(
        fmt::format("{}={} is not below {}={}", found->rank, *rank, found->size, *size));
  }
  environment.world_rank = *rank;
  environment.world_size = *size;
  environment.launcher = found->launcher;
  environment.local_rank = read_int(lookup, found->local_rank).value_or(-1);
  if (environment.local_rank < 0) {
    throw UsageError(fmt::format("{} sets {} but not {}: cannot tell which GPU is this process's",
                                 found->launcher, found->rank, found->local_rank));
  }

  const bool use_mpi =
      requested == "mpi" || (requested == "auto" && found->speaks_mpi && mpi_built);
  if (use_mpi) {
    if (!mpi_built)
      throw UsageError(
          "--launcher mpi: this collbench was built without MPI (COLLBENCH_WITH_MPI=OFF)");
    environment.mode = LaunchMode::mpi;
    return environment;
  }
  // NCCL's own bootstrap: every process gets the same id from NCCL_COMM_ID, rank 0 serves it.
  environment.mode = LaunchMode::env;
  if (const char* comm_id = lookup("NCCL_COMM_ID"); comm_id && *comm_id) {
    environment.nccl_comm_id = comm_id;
  } else if (const char* address = lookup("MASTER_ADDR"); address && *address) {
    // torchrun's own store listens on MASTER_PORT, so NCCL's bootstrap takes the next port.
    const int port = read_int(lookup, "MASTER_PORT").value_or(29500);
    environment.nccl_comm_id = fmt::format("{}:{}", address, port + 1);
  } else {
    throw UsageError(
        fmt::format("{} launched {} processes but neither NCCL_COMM_ID nor MASTER_ADDR is set: "
                    "set NCCL_COMM_ID=<rank 0 host>:<free port> for every process",
                    found->launcher, *size));
  }
  return environment;
}

}  // namespace collbench
