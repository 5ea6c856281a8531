// MPI start/stop and the NCCL unique id broadcast (compiled to stubs without MPI).
#include "launch/mpi_bootstrap.hpp"

#include "core/errors.hpp"

#if COLLBENCH_WITH_MPI
#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <deque>
#include <thread>
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

bool mpi_built_in() {
  return true;
}

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

std::vector<std::optional<std::vector<char>>> mpi_exchange_bounded(const std::vector<char>& mine,
                                                                   int processes, double wait_s) {
  constexpr int kTag = 0xC0B;  // no other message of collbench's uses MPI point to point
  int me = 0;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &me), "MPI_Comm_rank");
  const int bytes = static_cast<int>(mine.size());
  // Buffers outlive the call: a send or receive that never completes still refers to its buffer.
  static std::deque<std::vector<char>> kept;
  kept.push_back(mine);
  const std::vector<char>& sent = kept.back();
  std::vector<MPI_Request> sends, receives;
  std::vector<int> sources;
  std::vector<std::vector<char>*> received;
  for (int peer = 0; peer < processes; ++peer) {
    if (peer == me) continue;
    sends.emplace_back();
    check_mpi(MPI_Isend(sent.data(), bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD, &sends.back()),
              "MPI_Isend");
    received.push_back(&kept.emplace_back(mine.size()));
    receives.emplace_back();
    sources.push_back(peer);
    check_mpi(MPI_Irecv(received.back()->data(), bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD,
                        &receives.back()),
              "MPI_Irecv");
  }
  std::vector<std::optional<std::vector<char>>> answers(processes);
  if (me < processes) answers[me] = mine;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  std::size_t pending = receives.size();
  while (pending > 0 && std::chrono::steady_clock::now() < deadline) {
    for (std::size_t i = 0; i < receives.size(); ++i) {
      int done = 0;
      if (receives[i] == MPI_REQUEST_NULL) continue;
      check_mpi(MPI_Test(&receives[i], &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) {
        answers[sources[i]] = *received[i];
        --pending;
      }
    }
    if (pending > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // What never came is given up: the requests are cancelled or left to finish on their own.
  for (MPI_Request& request : receives) {
    if (request == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&request);
    MPI_Request_free(&request);
  }
  for (MPI_Request& request : sends) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) MPI_Request_free(&request);
  }
  return answers;
}

#else

namespace {
[[noreturn]] void throw_without_mpi() {
  throw UsageError("this collbench was built without MPI (COLLBENCH_WITH_MPI=OFF)");
}
}  // namespace

bool mpi_built_in() {
  return false;
}
void mpi_start(int&, int&) {
  throw_without_mpi();
}
void mpi_stop() noexcept {}
ncclUniqueId mpi_share_unique_id(int) {
  throw_without_mpi();
}
std::vector<std::optional<std::vector<char>>> mpi_exchange_bounded(const std::vector<char>&, int,
                                                                   double) {
  throw_without_mpi();
}

#endif

}  // namespace collbench
