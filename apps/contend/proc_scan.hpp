// Finding another program's processes and threads through /proc: a collbench process by the
// launcher rank in its environment or by its name, and its threads by their names.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace collbench::contend {

struct TargetSpec {
  int rank = -1;
  // Empty: the process of `rank` (one process per GPU), every thread of it. Else the process of
  // this name (one process driving every GPU), its threads named rank_thread_name(rank).
  std::string process_name;
};

// The rank a launcher gave a process, from its environment as /proc/PID/environ holds it
// (NUL-separated KEY=VALUE): the first of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, RANK
// that is set decides; absent or not a whole number: none.
std::optional<int> launcher_rank(const std::string& environ_block);

// A collbench program's name (/proc/PID/comm, at most 15 characters), collbench_contend excepted.
bool is_collbench_name(const std::string& comm);

// Whether a process is called `name`: its comm (the executable's name cut to 15 characters by
// the kernel) equals the name cut the same way.
bool matches_process_name(const std::string& comm, const std::string& name);

// "cb-rank-3": the name bench/launch/rank_workers.cpp gives the thread of rank 3 (the two must
// agree; collbench_contend shares no code with collbench by design).
std::string rank_thread_name(int rank);

// The processes the target lives in, now (never this process); empty when none is there yet.
std::vector<pid_t> find_target_processes(const TargetSpec& target);

// The target's threads in process `pid`, now: all of them, or those named
// rank_thread_name(target.rank) when target.process_name is set.
std::vector<pid_t> target_threads(pid_t pid, const TargetSpec& target);

// What the target is, in words: "rank 3's process" or "threads cb-rank-3 of collbench_diagnose".
std::string describe_target(const TargetSpec& target);

}  // namespace collbench::contend
