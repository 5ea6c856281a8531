// Tests of launcher detection from environment variables.
#include "launch/launch_environment.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/errors.hpp"

namespace collbench {
namespace {

LaunchEnvironment detect(const std::map<std::string, std::string>& variables,
                         std::string_view requested = "auto", bool mpi_built = true) {
  return detect_launch_environment(
      [&](const char* name) -> const char* {
        auto found = variables.find(name);
        return found == variables.end() ? nullptr : found->second.c_str();
      },
      requested, mpi_built);
}

void expect_error(const std::map<std::string, std::string>& variables, const std::string& fragment,
                  std::string_view requested = "auto", bool mpi_built = true) {
  try {
    detect(variables, requested, mpi_built);
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

TEST(LaunchEnvironment, NoLauncherMeansOneProcessDrivingEveryGpu) {
  EXPECT_EQ(detect({}).mode, LaunchMode::single_process);
  // A launcher with one process is the same thing.
  EXPECT_EQ(detect({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"LOCAL_RANK", "0"}}).mode,
            LaunchMode::single_process);
  EXPECT_EQ(detect({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}}, "single").mode,
            LaunchMode::single_process);
}

TEST(LaunchEnvironment, OpenMpiUsesMpiWhenBuiltIn) {
  const std::map<std::string, std::string> mpirun = {{"OMPI_COMM_WORLD_RANK", "3"},
                                                     {"OMPI_COMM_WORLD_SIZE", "8"},
                                                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}};
  const LaunchEnvironment environment = detect(mpirun);
  EXPECT_EQ(environment.mode, LaunchMode::mpi);
  EXPECT_EQ(environment.world_rank, 3);
  EXPECT_EQ(environment.world_size, 8);
  EXPECT_EQ(environment.local_rank, 1);
  EXPECT_EQ(environment.launcher, "OpenMPI");
  // Without MPI built in, mpirun's variables still work through NCCL's bootstrap...
  std::map<std::string, std::string> with_id = mpirun;
  with_id["NCCL_COMM_ID"] = "10.0.0.1:29600";
  const LaunchEnvironment env_mode = detect(with_id, "auto", /*mpi_built=*/false);
  EXPECT_EQ(env_mode.mode, LaunchMode::env);
  EXPECT_EQ(env_mode.nccl_comm_id, "10.0.0.1:29600");
  // ...and asking for MPI then is an error.
  expect_error(mpirun, "built without MPI", "mpi", false);
}

TEST(LaunchEnvironment, SlurmAndPmi) {
  const LaunchEnvironment slurm =
      detect({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "1"}});
  EXPECT_EQ(slurm.launcher, "Slurm");
  EXPECT_EQ(slurm.mode, LaunchMode::mpi);
  EXPECT_EQ(slurm.world_rank, 5);
  const LaunchEnvironment pmi =
      detect({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}, {"MPI_LOCALRANKID", "2"}});
  EXPECT_EQ(pmi.launcher, "MPICH/PMI");
  EXPECT_EQ(pmi.local_rank, 2);
}

TEST(LaunchEnvironment, TorchrunUsesNcclBootstrap) {
  const LaunchEnvironment torchrun = detect({{"RANK", "1"},
                                             {"WORLD_SIZE", "2"},
                                             {"LOCAL_RANK", "1"},
                                             {"MASTER_ADDR", "node7"},
                                             {"MASTER_PORT", "29500"}});
  EXPECT_EQ(torchrun.mode, LaunchMode::env);
  EXPECT_EQ(torchrun.launcher, "torchrun");
  EXPECT_EQ(torchrun.nccl_comm_id, "node7:29501");  // the store keeps MASTER_PORT
  const LaunchEnvironment explicit_id = detect({{"RANK", "0"},
                                                {"WORLD_SIZE", "2"},
                                                {"LOCAL_RANK", "0"},
                                                {"NCCL_COMM_ID", "h:1"},
                                                {"MASTER_ADDR", "x"}});
  EXPECT_EQ(explicit_id.nccl_comm_id, "h:1");
  expect_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}, "NCCL_COMM_ID");
}

TEST(LaunchEnvironment, LauncherNamesAreCheckedAlone) {
  for (const char* name : {"auto", "single", "mpi", "env"})
    EXPECT_NO_THROW(check_launcher_name(name));
  try {
    check_launcher_name("torchrun");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--launcher 'torchrun' is not one of auto, single, mpi, env");
  }
}

TEST(LaunchEnvironment, InconsistentVariablesAreOneLineErrors) {
  expect_error({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"MASTER_ADDR", "x"}},
               "RANK=2 is not below");
  expect_error({{"RANK", "x"}, {"WORLD_SIZE", "2"}}, "RANK='x'");
  expect_error({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}},
               "OMPI_COMM_WORLD_LOCAL_RANK");
  expect_error({}, "no launcher variables", "mpi");
  expect_error({}, "'srun'", "srun");
}

}  // namespace
}  // namespace collbench
