// The hidden --inject-fault: its grammar through the command line, each refusal's exact line, and
// what a fault asks of each rank of a case.
#include "collbench/fault_injection.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "collbench/options.hpp"
#include "core/errors.hpp"

namespace collbench {
namespace {

InjectedFault parse_fault(const std::string& text) {
  return parse_command_line({"collbench", "--inject-fault", text}).fault;
}

void expect_fault(const std::string& text, FaultKind kind, int rank, double amount) {
  SCOPED_TRACE(text);
  const InjectedFault fault = parse_fault(text);
  EXPECT_EQ(fault.kind, kind);
  EXPECT_EQ(fault.rank, rank);
  EXPECT_DOUBLE_EQ(fault.amount, amount);
}

TEST(FaultInjection, GrammarWithDefaults) {
  EXPECT_EQ(parse_command_line({"collbench"}).fault.kind, FaultKind::none);
  expect_fault("corrupt_output", FaultKind::corrupt_output, -1, 0);
  expect_fault("fail_allocation", FaultKind::fail_allocation, -1, 0);
  expect_fault("skip_rank", FaultKind::skip_rank, -1, 0);  // the case's last rank
  expect_fault("skip_rank:0", FaultKind::skip_rank, 0, 0);
  expect_fault("slow_rank:1", FaultKind::slow_rank, 1, 0.5);
  expect_fault("slow_rank:3:0.5", FaultKind::slow_rank, 3, 0.5);
  expect_fault("slow_rank:0:1", FaultKind::slow_rank, 0, 1);
  expect_fault("late_rank:1", FaultKind::late_rank, 1, 2);
  expect_fault("late_rank:2:0.25", FaultKind::late_rank, 2, 0.25);
  expect_fault("late_rank:0:0", FaultKind::late_rank, 0, 0);
}

TEST(FaultInjection, RefusalsAreOneLineNamingTheText) {
  const std::string kinds =
      "corrupt_output, fail_allocation, skip_rank[:R], slow_rank:R[:FRACTION] or late_rank:R[:MS]";
  const std::vector<std::pair<std::string, std::string>> table = {
      {"bogus", "--inject-fault 'bogus' is not " + kinds},
      {"slow_ranks:1", "--inject-fault 'slow_ranks:1' is not " + kinds},
      {"slow_rank", "--inject-fault 'slow_rank' names no rank (slow_rank:R[:FRACTION])"},
      {"late_rank", "--inject-fault 'late_rank' names no rank (late_rank:R[:MS])"},
      {"slow_rank:x", "--inject-fault 'slow_rank:x': rank 'x' is not a non-negative integer"},
      {"late_rank:-1", "--inject-fault 'late_rank:-1': rank '-1' is not a non-negative integer"},
      {"skip_rank:", "--inject-fault 'skip_rank:': rank '' is not a non-negative integer"},
      {"slow_rank:1:1.5",
       "--inject-fault 'slow_rank:1:1.5' has fraction '1.5', not a share of the SMs in (0, 1]"},
      {"slow_rank:1:0",
       "--inject-fault 'slow_rank:1:0' has fraction '0', not a share of the SMs in (0, 1]"},
      {"slow_rank:1:nan",
       "--inject-fault 'slow_rank:1:nan' has fraction 'nan', not a share of the SMs in (0, 1]"},
      {"late_rank:1:-1",
       "--inject-fault 'late_rank:1:-1' has delay '-1', not a number of ms from 0 to 10000"},
      {"late_rank:1:2ms",
       "--inject-fault 'late_rank:1:2ms' has delay '2ms', not a number of ms from 0 to 10000"},
      {"late_rank:1:",
       "--inject-fault 'late_rank:1:' has delay '', not a number of ms from 0 to 10000"},
      {"corrupt_output:1", "--inject-fault 'corrupt_output:1' takes nothing after corrupt_output"},
      {"skip_rank:1:2", "--inject-fault 'skip_rank:1:2' has too many fields (" + kinds + ")"},
      {"late_rank:1:2:3", "--inject-fault 'late_rank:1:2:3' has too many fields (" + kinds + ")"},
  };
  for (const auto& [text, message] : table) {
    SCOPED_TRACE(text);
    try {
      parse_fault(text);
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()), message);
    }
  }
}

TEST(FaultInjection, EachRankLearnsWhatItMustDo) {
  // skip_rank without a rank: the case's last rank, and never a rank alone (it has no peer).
  const InjectedFault last = parse_injected_fault("skip_rank");
  EXPECT_FALSE(rank_fault(last, 0, 2).skips_one);
  EXPECT_TRUE(rank_fault(last, 1, 2).skips_one);
  EXPECT_TRUE(rank_fault(last, 3, 4).skips_one);
  EXPECT_FALSE(rank_fault(last, 0, 1).skips_one);
  const InjectedFault first = parse_injected_fault("skip_rank:0");
  EXPECT_TRUE(rank_fault(first, 0, 2).skips_one);
  EXPECT_FALSE(rank_fault(first, 1, 2).skips_one);

  const InjectedFault slow = parse_injected_fault("slow_rank:1:0.75");
  EXPECT_DOUBLE_EQ(rank_fault(slow, 1, 2).sm_share, 0.75);
  EXPECT_DOUBLE_EQ(rank_fault(slow, 0, 2).sm_share, 0);
  EXPECT_FALSE(rank_fault(slow, 1, 2).skips_one);
  EXPECT_EQ(rank_fault(slow, 1, 2).delay.count(), 0);

  const InjectedFault late = parse_injected_fault("late_rank:2:3.5");
  EXPECT_DOUBLE_EQ(rank_fault(late, 2, 4).delay.count(), 3.5);
  EXPECT_DOUBLE_EQ(rank_fault(late, 1, 4).delay.count(), 0);
  EXPECT_DOUBLE_EQ(rank_fault(late, 2, 4).sm_share, 0);

  // A rank beyond the case's ranks matches none of them: the case runs clean.
  const InjectedFault beyond = parse_injected_fault("slow_rank:5");
  for (int rank = 0; rank < 4; ++rank) EXPECT_DOUBLE_EQ(rank_fault(beyond, rank, 4).sm_share, 0);
  // The faults that strike no rank in particular ask nothing of any.
  for (const char* text : {"corrupt_output", "fail_allocation"}) {
    const RankFault asked = rank_fault(parse_injected_fault(text), 1, 2);
    EXPECT_FALSE(asked.skips_one);
    EXPECT_DOUBLE_EQ(asked.sm_share, 0);
    EXPECT_DOUBLE_EQ(asked.delay.count(), 0);
  }
}

}  // namespace
}  // namespace collbench
