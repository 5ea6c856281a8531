// Where a workload line is, for its one-line errors: "PATH:LINE", followed by the op's own source
// location when it has one ("w.jsonl:12 (nccl.vm.5974.log:85)"), or that location first when the
// workload was made in passing from the sources the user named (check SOURCE...).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace collbench::replay {

struct LineContext {
  std::string_view path;
  std::uint64_t line = 0;
  std::string_view source_where;  // the op's "where", once read
  bool source_first = false;

  std::string location() const;
  [[noreturn]] void fail(std::string_view what) const;
};

}  // namespace collbench::replay
