// Writes the NCCL logs (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,COLL) a data-parallel x
// tensor-parallel job of any size would, as real NCCL 2.28 prints them: a world communicator, TP
// and DP groups split from it, and per step two TP all_reduces, a DP reduce_scatter (avg) and
// all_gather, a batched send/recv ring on the TP group, a world all_reduce and broadcast. For
// collbench_replay's large-trace test and for timing an import of millions of ops.
//
//   replay_make_nccl_logs DIR RANKS TP OPS_PER_RANK
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr int kOpsPerStep = 8;  // with TP > 1; 6 without the ring

struct Process {
  int rank;
  int tp;
  int dp;
  std::FILE* log;
};

// "gen:PID:TID [DEV] NCCL INFO " for this process.
void prefix(const Process& p) {
  std::fprintf(p.log, "gen:%d:%d [%d] NCCL INFO ", 1000 + p.rank, 1000 + p.rank, p.rank % 8);
}

void init_lines(const Process& p, int world) {
  const int replica = p.rank / p.tp;
  const int tp_rank = p.rank % p.tp;
  prefix(p);
  std::fprintf(p.log, "NCCL version 2.28.9+cuda13.0\n");
  prefix(p);
  std::fprintf(p.log,
               "ncclCommInitRankConfig comm 0x100%d rank %d nranks %d cudaDev 0 nvmlDev 0 busId 60 "
               "commId 0x5eed0000cafe - Init START\n",
               p.rank, p.rank, world);
  prefix(p);
  std::fprintf(p.log,
               "ncclCommSplit comm 0x200%d rank %d nranks %d cudaDev 0 nvmlDev 0 busId 60 parent "
               "0x100%d splitCount 1 color %d key %d - Init COMPLETE\n",
               p.rank, tp_rank, p.tp, p.rank, replica, tp_rank);
  prefix(p);
  std::fprintf(p.log,
               "ncclCommSplit comm 0x300%d rank %d nranks %d cudaDev 0 nvmlDev 0 busId 60 parent "
               "0x100%d splitCount 2 color %d key %d - Init COMPLETE\n",
               p.rank, replica, p.dp, p.rank, tp_rank, replica);
}

// One op line: NAME count TYPE op ROOT on communicator kind (1 world, 2 TP, 3 DP) of `ranks`.
void op_line(const Process& p, const char* name, long count, int type, int redop, int root,
             int kind, int ranks) {
  prefix(p);
  std::fprintf(
      p.log,
      "%s: opCount 0 sendbuff 0x7f0000000000 recvbuff 0x7f0000100000 count %ld datatype %d op %d "
      "root %d comm 0x%d00%d [nranks=%d] stream 0x%d0\n",
      name, count, type, redop, root, kind, p.rank, ranks, kind);
}

void step_lines(const Process& p, int world) {
  const int tp_rank = p.rank % p.tp;
  op_line(p, "AllReduce", 4096, 7, 0, 0, 2, p.tp);
  op_line(p, "AllReduce", 8192, 9, 0, 0, 2, p.tp);
  op_line(p, "ReduceScatter", 65536, 7, 4, 0, 3, p.dp);
  op_line(p, "AllGather", 65536, 9, 0, 0, 3, p.dp);
  if (p.tp > 1) {  // batch_isend_irecv: consecutive lines of one thread, communicator and stream
    op_line(p, "Send", 1536, 9, 0, (tp_rank + 1) % p.tp, 2, p.tp);
    op_line(p, "Recv", 1536, 9, 0, (tp_rank + p.tp - 1) % p.tp, 2, p.tp);
  }
  op_line(p, "AllReduce", 1, 7, 0, 0, 1, world);
  op_line(p, "Broadcast", 1024, 7, 0, 0, 1, world);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: replay_make_nccl_logs DIR RANKS TP OPS_PER_RANK\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int world = std::atoi(argv[2]);
  const int tp = std::atoi(argv[3]);
  const long ops_per_rank = std::atol(argv[4]);
  if (world < 1 || tp < 1 || world % tp != 0 || ops_per_rank < 1) {
    std::fprintf(stderr, "replay_make_nccl_logs: RANKS must be a multiple of TP, both positive\n");
    return 2;
  }
  const long steps = ops_per_rank / (tp > 1 ? kOpsPerStep : kOpsPerStep - 2);
  for (int rank = 0; rank < world; ++rank) {
    const std::string path = dir + "/nccl.gen." + std::to_string(1000 + rank) + ".log";
    Process p{rank, tp, world / tp, std::fopen(path.c_str(), "w")};
    if (p.log == nullptr) {
      std::fprintf(stderr, "replay_make_nccl_logs: %s cannot be written\n", path.c_str());
      return 1;
    }
    init_lines(p, world);
    for (long step = 0; step < steps; ++step) step_lines(p, world);
    std::fclose(p.log);
  }
  return 0;
}
