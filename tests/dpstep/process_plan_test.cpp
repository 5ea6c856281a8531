// The multi-process rules of the training step: which configurations a process takes part in,
// and how the processes' outcomes of a configuration become the one they all report.
#include "session/process_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "reports/report_row.hpp"

namespace collbench::dp {
namespace {

ProcessLayout world(int rank, int size) {
  return {false, rank, size, 0};
}

TEST(ProcessPlan, OneProcessDrivesEveryRankOnItsVisibleGpus) {
  const ProcessLayout one{true, 0, 1, 4};
  for (int ranks : {1, 2, 4}) {
    const ConfigPlacement placement = place_configuration(ranks, one);
    EXPECT_TRUE(placement.unsupported.empty()) << ranks;
    EXPECT_TRUE(placement.takes_part);
    EXPECT_EQ(placement.makes_communicator, ranks > 1);
  }
  EXPECT_EQ(place_configuration(8, one).unsupported, "needs 8 GPUs, 4 visible");
  EXPECT_EQ(place_configuration(1, ProcessLayout{true, 0, 1, 0}).unsupported,
            "needs 1 GPU, 0 visible");
}

TEST(ProcessPlan, TheBaselineRunsOnWorldRankZeroAloneWithoutASplit) {
  for (int rank = 0; rank < 4; ++rank) {
    const ConfigPlacement placement = place_configuration(1, world(rank, 4));
    EXPECT_TRUE(placement.unsupported.empty());
    EXPECT_FALSE(placement.makes_communicator);
    EXPECT_EQ(placement.takes_part, rank == 0);
  }
}

TEST(ProcessPlan, EveryProcessSplitsAndTheFirstRanksTakePart) {
  // Processes stay in lockstep: for every configuration all of them split, or none does.
  for (int ranks : {2, 3, 4}) {
    int taking_part = 0;
    for (int rank = 0; rank < 4; ++rank) {
      const ConfigPlacement placement = place_configuration(ranks, world(rank, 4));
      EXPECT_TRUE(placement.unsupported.empty());
      EXPECT_TRUE(placement.makes_communicator) << ranks << " ranks, world rank " << rank;
      EXPECT_EQ(placement.takes_part, rank < ranks);
      taking_part += placement.takes_part;
    }
    EXPECT_EQ(taking_part, ranks);
  }
}

TEST(ProcessPlan, MoreRanksThanProcessesIsUnsupportedEverywhere) {
  for (int rank = 0; rank < 4; ++rank) {
    const ConfigPlacement placement = place_configuration(8, world(rank, 4));
    EXPECT_EQ(placement.unsupported, "needs 8 GPUs, 4 processes (one GPU each)");
    EXPECT_FALSE(placement.makes_communicator);  // nobody splits: none waits for another
    EXPECT_FALSE(placement.takes_part);
  }
}

TEST(ProcessPlan, SeverityOrdersStatusesAndRoundTrips) {
  const std::vector<std::string> order = {report::kStatusOk, report::kStatusSkipped,
                                          report::kStatusTimeout, report::kStatusOom,
                                          report::kStatusError};
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(status_severity(order[i]), static_cast<int>(i));
    EXPECT_EQ(status_of_severity(static_cast<int>(i)), order[i]);
  }
  EXPECT_EQ(status_severity("no such status"), status_severity(report::kStatusError));
}

// The maximum of every process's key, as the all-reduce computes it.
WorstStatus worst_of(const std::vector<std::string>& statuses) {
  const int size = static_cast<int>(statuses.size());
  std::uint64_t key = 0;
  for (int rank = 0; rank < size; ++rank) {
    key = std::max(key, agreement_key(status_severity(statuses[rank]), rank, size));
  }
  return decode_agreement_key(key, size);
}

TEST(ProcessPlan, TheMaximumKeyNamesTheWorstStatusAndItsLowestRank) {
  WorstStatus worst = worst_of({"ok", "timeout", "error", "error"});
  EXPECT_EQ(worst.severity, status_severity("error"));
  EXPECT_EQ(worst.rank, 2);
  worst = worst_of({"ok", "ok", "ok", "ok"});
  EXPECT_EQ(worst.severity, 0);
  EXPECT_EQ(worst.rank, 0);
  worst = worst_of({"skipped", "ok", "skipped"});
  EXPECT_EQ(worst.severity, status_severity("skipped"));
  EXPECT_EQ(worst.rank, 0);
  worst = worst_of({"ok", "oom", "timeout", "timeout", "ok", "ok", "ok", "oom"});
  EXPECT_EQ(worst.severity, status_severity("oom"));
  EXPECT_EQ(worst.rank, 1);
  EXPECT_THROW(agreement_key(0, 4, 4), std::invalid_argument);
}

TEST(ProcessPlan, AReasonTravelsAsFixedZeroPaddedBytes) {
  const std::string reason =
      "cudaMalloc failed (cudaErrorMemoryAllocation) [x.cpp:1, rank 2, GPU 2]";
  const std::vector<std::uint8_t> sent = reason_bytes(reason, true);
  ASSERT_EQ(sent.size(), kReasonBytes);
  EXPECT_EQ(reason_from_bytes(sent), reason);
  const std::vector<std::uint8_t> silent = reason_bytes("other", false);
  EXPECT_TRUE(std::all_of(silent.begin(), silent.end(), [](std::uint8_t b) { return b == 0; }));
  // The element-wise maximum over every process delivers the sender's text.
  std::vector<std::uint8_t> combined = silent;
  for (std::size_t i = 0; i < combined.size(); ++i) combined[i] = std::max(combined[i], sent[i]);
  EXPECT_EQ(reason_from_bytes(combined), reason);
  const std::string longer(3000, 'x');
  EXPECT_EQ(reason_from_bytes(reason_bytes(longer, true)), std::string(kReasonBytes - 1, 'x'));
}

TEST(ProcessPlan, AProcessKeepsItsOwnOutcomeOrTakesTheWorstOne) {
  StepOutcome measured;
  measured.measurement.step.mean_us = 3190;
  // All went well: everyone keeps what it has (rank 0 its measurement).
  StepOutcome kept = agreed_outcome(measured, 0, {0, 0}, "");
  EXPECT_EQ(kept.status, report::kStatusOk);
  EXPECT_DOUBLE_EQ(kept.measurement.step.mean_us, 3190);
  // Rank 3 ran out of memory: rank 0 reports that, naming rank 3.
  const WorstStatus oom{status_severity(report::kStatusOom), 3};
  StepOutcome taken = agreed_outcome(measured, 0, oom, "cudaMalloc failed");
  EXPECT_EQ(taken.status, report::kStatusOom);
  EXPECT_EQ(taken.reason, "rank 3: cudaMalloc failed");
  EXPECT_DOUBLE_EQ(taken.measurement.step.mean_us, 0);
  // Rank 3 keeps its own words; a process with the same status keeps its own reason too.
  StepOutcome own = unmeasured(report::kStatusOom, "cudaMalloc failed");
  EXPECT_EQ(agreed_outcome(own, 3, oom, "cudaMalloc failed").reason, "cudaMalloc failed");
  StepOutcome same = unmeasured(report::kStatusOom, "out of memory on another rank");
  EXPECT_EQ(agreed_outcome(same, 1, oom, "cudaMalloc failed").reason,
            "out of memory on another rank");
}

}  // namespace
}  // namespace collbench::dp
