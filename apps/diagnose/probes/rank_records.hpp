// Every rank's record of a probe, on every process: the local ones as they are when one process
// drives all ranks, else gathered through NCCL from one rank per process (outside any probe that
// can hang, so a plain collective is fine here).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "measure/rank_set.hpp"
#include "runtime/process_all_gather.hpp"

namespace collbench::diagnose {

template <typename Record>
std::vector<Record> every_rank(Runner::RankSet& set, const std::vector<Record>& local, int ranks,
                               bool multi_process, double timeout_s) {
  if (!multi_process) return local;  // one process: local index = rank
  try {
    return all_gather_records(set.contexts().front(), local.front(), ranks, timeout_s);
  } catch (...) {
    set.abort_all();  // a peer that never came: nothing may wait on these communicators any more
    throw;
  }
}

// Text in a fixed-size record field (records travel as bytes).
template <std::size_t N>
void copy_text(char (&field)[N], const std::string& text) {
  std::memset(field, 0, N);
  std::memcpy(field, text.data(), std::min(text.size(), N - 1));
}

}  // namespace collbench::diagnose
