// ExitDeadline: a call that overstays ends the process with one line and status 1; one that
// returns in time (the object destroyed first) leaves the process running.
#include "launch/exit_deadline.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace collbench {
namespace {

TEST(ExitDeadlineDeathTest, ACallPastTheDeadlineEndsTheProcessWithOneLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const ExitDeadline deadline(0.05, "rank 1 of 4: the processes did not all join");
        std::this_thread::sleep_for(std::chrono::seconds(10));  // the blocked call
      },
      ::testing::ExitedWithCode(1),
      "collbench: error: rank 1 of 4: the processes did not all join");
}

TEST(ExitDeadline, ACallThatReturnsInTimeCancelsIt) {
  { const ExitDeadline deadline(0.2, "must not fire"); }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // it would have fired by now
  SUCCEED() << "still running";
}

TEST(ExitDeadline, NoDeadlineWhenTheTimeoutIsZero) {
  const ExitDeadline deadline(0, "never");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  SUCCEED();
}

}  // namespace
}  // namespace collbench
