// What each process does with a training-step configuration, and how the processes' outcomes of
// it become one. Pure rules, tested on the CPU.
//
// One process drives every GPU (launch mode single_process), or each process drives one GPU (a
// launch by mpirun, srun or torchrun). A configuration of n ranks then runs on world ranks
// [0, n): for n > 1 every process takes part in splitting the world (ncclCommSplit is collective)
// and the processes outside the split sit the configuration out; the 1-GPU baseline runs on world
// rank 0 alone and needs no communicator. Afterwards every process holds the same outcome: the
// worst status any process had, with the reason given by the lowest rank that had it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "session/dp_report.hpp"

namespace collbench::dp {

struct ProcessLayout {
  bool single_process = true;
  int world_rank = 0;
  int world_size = 1;
  int visible_gpus = 0;  // single process: the GPUs it can drive (0..visible-1)
};

struct ConfigPlacement {
  std::string unsupported;  // why no process can run it ("" when it can); the same on every process
  // The ranks need a communicator: this process makes one per rank, or, with one process per GPU,
  // every process takes part in splitting the world for it (also the ones that then sit out).
  bool makes_communicator = false;
  bool takes_part = false;  // this process drives ranks of it
};

ConfigPlacement place_configuration(int ranks, const ProcessLayout& layout);

// How bad a status is, for choosing the one every process reports: ok < skipped < timeout < oom
// < error. A timeout is mostly what the other processes see when one of them failed, and the
// failing process's own status names the cause.
int status_severity(std::string_view status);
const char* status_of_severity(int severity);

// One number per process whose maximum over all processes names the worst status and, among the
// processes that had it, the lowest rank (so one all-reduce finds both).
std::uint64_t agreement_key(int severity, int rank, int world_size);
struct WorstStatus {
  int severity = 0;
  int rank = 0;  // the lowest rank that had it
};
WorstStatus decode_agreement_key(std::uint64_t key, int world_size);

// A reason as it travels between processes: a fixed number of bytes, zero-padded (cut if longer),
// and all zeros from every process but the one whose reason is wanted, so that a maximum over the
// processes delivers it.
inline constexpr std::size_t kReasonBytes = 1024;
std::vector<std::uint8_t> reason_bytes(const std::string& reason, bool sending);
std::string reason_from_bytes(const std::vector<std::uint8_t>& bytes);

// What this process reports once the worst status is known: its own outcome when it had that
// status itself, otherwise that status with the reason of the rank that had it.
StepOutcome agreed_outcome(const StepOutcome& mine, int my_rank, const WorstStatus& worst,
                           const std::string& their_reason);

}  // namespace collbench::dp
