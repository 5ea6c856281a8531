// How this process was launched: alone (one process drives every GPU), by an MPI launcher
// (mpirun, srun with PMI) or by a launcher that only sets environment variables (torchrun's
// RANK/WORLD_SIZE/LOCAL_RANK, Slurm's SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID). Pure: reads
// variables through a lookup function, so it is tested without launching anything.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace collbench {

enum class LaunchMode { single_process, mpi, env };

struct LaunchEnvironment {
  LaunchMode mode = LaunchMode::single_process;
  int world_rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string launcher = "none";  // OpenMPI, MPICH/PMI, Slurm, torchrun
  // env mode: NCCL's own bootstrap address (NCCL_COMM_ID), set for every process alike.
  std::string nccl_comm_id;
};

using EnvironmentLookup = std::function<const char*(const char* name)>;

// The --launcher option's help text, the same in every binary that has it.
inline constexpr const char* kLauncherOptionHelp =
    "auto (detect mpirun/srun/torchrun variables), single (this process drives every GPU), mpi, "
    "env";

// Throws UsageError (one line) unless `requested` is auto, single, mpi or env: a bad --launcher is
// rejected while parsing, before anything looks at the environment.
void check_launcher_name(std::string_view requested);

// `requested` is --launcher: auto, single, mpi or env. Throws UsageError (one line) when the
// variables are inconsistent or the requested mode cannot work (MPI not built in; env mode
// without NCCL_COMM_ID or MASTER_ADDR/MASTER_PORT).
LaunchEnvironment detect_launch_environment(const EnvironmentLookup& lookup,
                                            std::string_view requested, bool mpi_built);

std::string_view name_of(LaunchMode mode);

}  // namespace collbench
