// The polled wait without a GPU: its loop over fake targets (when it returns, what its timeout
// says, that a failed check ends it) and its back-off.
#include "runtime/completion_wait.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <vector>

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;

// Target i finishes at its finishes_at[i]-th poll (from 1) and stays finished; never when 0.
struct FakeTargets {
  std::vector<int> finishes_at;
  std::vector<int> polls = std::vector<int>(finishes_at.size());
  bool finished(std::size_t i) {
    ++polls[i];
    return finishes_at[i] > 0 && polls[i] >= finishes_at[i];
  }
};

TEST(PollUntilFinished, ReturnsOnceEveryTargetHasFinished) {
  FakeTargets targets{{1, 5, 3}};
  int checks = 0;
  poll_until_finished(
      3, [&](std::size_t i) { return targets.finished(i); }, [&] { ++checks; },
      WaitDeadline::after(10), "three streams");
  // Every poll asks every target; the checks run between polls of unfinished work only.
  EXPECT_EQ(targets.polls, (std::vector<int>{5, 5, 5}));
  EXPECT_EQ(checks, 4);
}

TEST(PollUntilFinished, FinishedWorkIsNoTimeoutEvenPastTheDeadline) {
  FakeTargets targets{{1, 1}};
  const WaitDeadline passed{Clock::now() - std::chrono::seconds(1), 1};
  EXPECT_NO_THROW(poll_until_finished(
      2, [&](std::size_t i) { return targets.finished(i); }, [] {}, passed, "two streams"));
}

TEST(PollUntilFinished, TimeoutNamesWhatAndWhoHadFinished) {
  FakeTargets targets{{1, 0, 2}};
  const Clock::time_point start = Clock::now();
  try {
    poll_until_finished(
        3, [&](std::size_t i) { return targets.finished(i); }, [] {}, WaitDeadline::after(0.05),
        "all_reduce on ranks 0-2");
    ADD_FAILURE() << "a target that never finishes must end in a timeout";
  } catch (const CompletionTimeout& timeout) {
    EXPECT_STREQ(timeout.what(), "all_reduce on ranks 0-2 did not finish within 0.05 s");
    EXPECT_EQ(timeout.done(), (std::vector<bool>{true, false, true}));
  }
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(50));
}

TEST(PollUntilFinished, AFailedCheckEndsTheWait) {
  FakeTargets targets{{0}};
  int checks = 0;
  EXPECT_THROW(poll_until_finished(
                   1, [&](std::size_t i) { return targets.finished(i); },
                   [&] {
                     if (++checks == 3) throw std::runtime_error("a peer gave up");
                   },
                   WaitDeadline::after(10), "one stream"),
               std::runtime_error);
  EXPECT_EQ(targets.polls.front(), 3);
}

// Short work is answered at once (yields only), long work costs little CPU (sleeps), and a sleep
// never delays noticing finished work by more than 100 us.
TEST(PauseAfterPoll, YieldsFirstThenSleepsBriefly) {
  EXPECT_EQ(pause_after_poll(0).count(), 0);
  int first_sleep = 0;
  while (pause_after_poll(first_sleep).count() == 0 && first_sleep < 1000000) ++first_sleep;
  EXPECT_GE(first_sleep, 100);
  for (int polls : {first_sleep, first_sleep + 1, 1 << 30}) {
    EXPECT_GT(pause_after_poll(polls).count(), 0) << polls;
    EXPECT_LE(pause_after_poll(polls).count(), 100) << polls;
  }
}

// "No deadline" (a huge timeout) must not overflow the clock into a deadline already passed.
TEST(WaitDeadline, AHugeTimeoutStaysAhead) {
  const WaitDeadline forever = WaitDeadline::after(1e300);
  EXPECT_GT(forever.at, Clock::now() + std::chrono::hours(24 * 365));
  EXPECT_EQ(forever.timeout_s, 1e300);
  const WaitDeadline soon = WaitDeadline::after(0.5);
  EXPECT_LE(soon.at, Clock::now() + std::chrono::milliseconds(500));
}

}  // namespace
}  // namespace collbench
