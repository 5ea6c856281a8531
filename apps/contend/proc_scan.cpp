// /proc reading for collbench_contend --cpu-starve. A process or thread may end between listing
// and reading: every read that fails counts as "not there", never as an error.
#include "proc_scan.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace collbench::contend {
namespace {

constexpr std::size_t kCommChars = 15;  // TASK_COMM_LEN - 1

std::optional<std::string> read_whole(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) return std::nullopt;
  return text.str();
}

std::string without_newline(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

std::optional<int> whole_number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return {};
  errno = 0;
  const long value = std::strtol(text.c_str(), nullptr, 10);
  if (errno != 0 || value > INT_MAX) return {};
  return static_cast<int>(value);
}

// The numeric entries of a /proc directory: processes, or a process's threads.
std::vector<pid_t> numeric_entries(const std::string& directory) {
  std::vector<pid_t> ids;
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir(directory.c_str()), closedir);
  if (!dir) return ids;
  while (const dirent* entry = readdir(dir.get())) {
    if (const std::optional<int> id = whole_number(entry->d_name)) ids.push_back(*id);
  }
  return ids;
}

std::string comm_of(const std::string& task_directory) {
  return without_newline(read_whole(task_directory + "/comm").value_or(""));
}

bool is_target_process(pid_t pid, const TargetSpec& target) {
  const std::string directory = fmt::format("/proc/{}", pid);
  const std::string comm = comm_of(directory);
  if (!target.process_name.empty()) return matches_process_name(comm, target.process_name);
  if (!is_collbench_name(comm)) return false;
  // Only a process of the same user (or root's view) lets its environment be read.
  const std::optional<std::string> environ_block = read_whole(directory + "/environ");
  return environ_block && launcher_rank(*environ_block) == target.rank;
}

}  // namespace

std::optional<int> launcher_rank(const std::string& environ_block) {
  static const std::array<std::string, 4> kRankVariables = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                                            "SLURM_PROCID", "RANK"};
  for (const std::string& variable : kRankVariables) {
    const std::string prefix = variable + "=";
    std::size_t start = 0;
    while (start < environ_block.size()) {
      std::size_t end = environ_block.find('\0', start);
      if (end == std::string::npos) end = environ_block.size();
      if (environ_block.compare(start, prefix.size(), prefix) == 0)
        return whole_number(
            environ_block.substr(start + prefix.size(), end - start - prefix.size()));
      start = end + 1;
    }
  }
  return std::nullopt;
}

bool is_collbench_name(const std::string& comm) {
  const std::string contend = std::string("collbench_contend").substr(0, kCommChars);
  return comm.rfind("collbench", 0) == 0 && comm.rfind(contend, 0) != 0;
}

bool matches_process_name(const std::string& comm, const std::string& name) {
  return !name.empty() && comm == name.substr(0, kCommChars);
}

std::string rank_thread_name(int rank) {
  return fmt::format("cb-rank-{}", rank);
}

std::vector<pid_t> find_target_processes(const TargetSpec& target) {
  std::vector<pid_t> found;
  const pid_t self = getpid();
  for (const pid_t pid : numeric_entries("/proc")) {
    if (pid != self && is_target_process(pid, target)) found.push_back(pid);
  }
  return found;
}

std::vector<pid_t> target_threads(pid_t pid, const TargetSpec& target) {
  const std::string tasks = fmt::format("/proc/{}/task", pid);
  std::vector<pid_t> threads = numeric_entries(tasks);
  if (target.process_name.empty()) return threads;
  const std::string wanted = rank_thread_name(target.rank);
  std::vector<pid_t> named;
  for (const pid_t tid : threads) {
    if (comm_of(fmt::format("{}/{}", tasks, tid)) == wanted) named.push_back(tid);
  }
  return named;
}

std::string describe_target(const TargetSpec& target) {
  if (target.process_name.empty())
    return fmt::format("every thread of rank {}'s collbench process", target.rank);
  return fmt::format("the threads {} of {}", rank_thread_name(target.rank), target.process_name);
}

}  // namespace collbench::contend
