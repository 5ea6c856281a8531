// Under mpiexec -n 2, without a GPU: after a timeout the processes swap their ranks' progress over
// MPI and compose the same message; a process that does not answer is named absent.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "launch/mpi_bootstrap.hpp"
#include "measure/case_progress.hpp"

namespace {

int failures = 0;

void expect_equal(const std::string& got, const std::string& wanted, int rank) {
  if (got == wanted) {
    std::printf("ok (process %d): %s\n", rank, got.c_str());
    return;
  }
  std::printf("FAIL (process %d):\n  got:    %s\n  wanted: %s\n", rank, got.c_str(),
              wanted.c_str());
  ++failures;
}

}  // namespace

int main() {
  using namespace collbench;
  int rank = 0, size = 0;
  mpi_start(rank, size);
  if (size != 2) {
    std::printf("FAIL: run with mpiexec -n 2 (got %d processes)\n", size);
    mpi_stop();
    return 1;
  }
  // Process 1 launched 10 of 20 operations and is idle; process 0 waits inside the 11th.
  const RankProgress mine = rank == 0 ? RankProgress{0, "h0", 0, "0000:06:00.0", 20, 20, false}
                                      : RankProgress{1, "h1", 0, "0000:07:00.0", 10, 20, true};
  expect_equal(
      describe_timeout("all_reduce nccl float sum 2r 1 MiB", 5, 2, {mine}, true),
      "all_reduce nccl float sum 2r 1 MiB did not finish within 5 s: rank 1 (host h1, GPU 0 "
      "[0000:07:00.0]) had not started operation 11 of 20 (launched 10, idle); waiting inside "
      "it: rank 0 (host h0, GPU 0 [0000:06:00.0])",
      rank);
  // Process 1 stays silent: process 0 gives up after 0.5 s and names it absent.
  if (rank == 0) {
    expect_equal(describe_timeout("c", 5, 2, {mine}, true, 0.5),
                 "c did not finish within 5 s: launched all 20 operations, still running: rank 0 "
                 "(host h0, GPU 0 [0000:06:00.0]); absent (no answer over MPI): rank 1",
                 rank);
  }
  // Without MPI to ask, the other process's rank is unknown.
  expect_equal(
      describe_timeout("c", 5, 2, {mine}, false),
      rank == 0
          ? "c did not finish within 5 s: launched all 20 operations, still running: rank 0 "
            "(host h0, GPU 0 [0000:06:00.0]); unknown (other processes, no MPI to ask): rank 1"
          : "c did not finish within 5 s: rank 1 (host h1, GPU 0 [0000:07:00.0]) had not "
            "started operation 11 of 20 (launched 10, idle); unknown (other processes, no "
            "MPI to ask): rank 0",
      rank);
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  mpi_stop();
  if (rank == 0) std::printf("progress exchange: %s\n", all_failures == 0 ? "passed" : "FAILED");
  return all_failures == 0 ? 0 : 1;
}
