// NCCL_TESTS_SPLIT rules: a rank's color (rank & v, rank | v, rank % v, rank / v) and the groups
// that splitting a communicator by that color makes.
#pragma once

#include <string>
#include <vector>

namespace collbench {

// nccl-tests (src/common.cu, NCCL_TESTS_SPLIT) applies the rule to the MPI process rank and
// splits MPI_COMM_WORLD with key = rank; collbench applies it to the rank within one GPU
// count's communicator, as ncclCommSplit(comm, color, key = rank) would.
struct SplitRule {
  enum class Op { and_, or_, mod, div };
  Op op = Op::and_;
  long value = 0;

  std::string text() const;  // canonical form, e.g. "MOD 2" or "AND 0x7" (masks in hex)
  int color(int rank) const;
};

// Parses "AND 0x7", "&7", "or 1", "| 1", "MOD 2", "%2", "DIV 4", "/ 4": a keyword or symbol
// (keywords in any case), optional blanks, a decimal or 0x-hex number. Throws UsageError naming
// the text and what is wrong: an unknown operator, a missing, bad or negative number, MOD 0 or
// DIV 0. nccl-tests' 0b binary numbers and its older NCCL_TESTS_SPLIT_MASK are not accepted.
SplitRule parse_split_rule(const std::string& text);

// The groups of ranks 0..ranks-1 with equal color, each in rank order, ordered by color.
std::vector<std::vector<int>> split_groups(const SplitRule& rule, int ranks);

}  // namespace collbench
