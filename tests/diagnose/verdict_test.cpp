// The verdict's rules on simulated figures: each fault comes out as the suspect it is, and a
// healthy machine with run-to-run jitter as no suspect.
#include "verdict.hpp"

#include <gtest/gtest.h>

#include "simulated_machine.hpp"

namespace collbench::diagnose {
namespace {

using namespace simulated;

std::vector<SuspectKind> kinds(const Verdict& verdict) {
  std::vector<SuspectKind> kinds;
  for (const Suspect& suspect : verdict.suspects) kinds.push_back(suspect.kind);
  return kinds;
}

TEST(Verdict, HealthyMachinesWithJitterHaveNoSuspect) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const Verdict verdict = judge(healthy_machine(1, 8, 0.03, seed));
    EXPECT_TRUE(verdict.clean()) << "seed " << seed << ": "
                                 << verdict.suspects.front().evidence.front();
    EXPECT_EQ(verdict.exit_status(), 0);
  }
  for (unsigned seed = 1; seed <= 5; ++seed) {
    EXPECT_TRUE(judge(healthy_machine(3, 4, 0.03, seed)).clean()) << "seed " << seed;
  }
}

TEST(Verdict, ACleanRunSaysHowFarItStoodFromTheThresholds) {
  const Verdict verdict = judge(healthy_machine(1, 8, 0.03));
  ASSERT_TRUE(verdict.margins.copy && verdict.margins.pair_bandwidth &&
              verdict.margins.pair_latency && verdict.margins.collective &&
              verdict.margins.lateness);
  // +-3% jitter: the worst ratio is within 0.97 / 1.03 of the best.
  EXPECT_GE(*verdict.margins.copy, 0.97 / 1.03);
  EXPECT_LT(*verdict.margins.copy, 1.0);
  EXPECT_GE(*verdict.margins.pair_bandwidth, 0.97 / 1.03);
  EXPECT_LE(*verdict.margins.pair_latency, 1.03 / 0.97);
  EXPECT_GT(*verdict.margins.pair_latency, 1.0);
  EXPECT_GE(*verdict.margins.collective, 0.97);
  // 5 us of lateness against a limit of max(50, 0.25 x 700) = 175 us.
  EXPECT_NEAR(*verdict.margins.lateness, 5 * 1.03 / 175, 5 * 0.06 / 175);
}

TEST(Verdict, NothingMeasuredLeavesTheMarginsAbsent) {
  const Verdict verdict = judge(Measurements{});
  EXPECT_TRUE(verdict.clean());
  EXPECT_FALSE(verdict.margins.copy || verdict.margins.pair_bandwidth ||
               verdict.margins.pair_latency || verdict.margins.collective ||
               verdict.margins.lateness);
}

TEST(Verdict, AGpuAtHalfItsCopyIsASlowGpu) {
  Measurements measurements = healthy_machine(1, 8);
  scale_copy(measurements, 5, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  const Suspect& suspect = verdict.suspects[0];
  EXPECT_EQ(suspect.kind, SuspectKind::slow_gpu);
  EXPECT_EQ(suspect.rank, 5);
  EXPECT_EQ(suspect.host, "node-a");
  EXPECT_EQ(suspect.pci_bus_id, "0000:15:00.0");
  EXPECT_EQ(suspect.figure, 745);
  EXPECT_EQ(suspect.expectation, 1490);
  EXPECT_EQ(suspect.ratio, 0.5);
  EXPECT_EQ(suspect.evidence,
            std::vector<std::string>{"copy 745 GB/s against the best GPU's 1490 (0.50×)"});
  EXPECT_EQ(verdict.exit_status(), 1);
}

TEST(Verdict, ASlowGpuWithJitterStillComesFirst) {
  Measurements measurements = healthy_machine(1, 8, 0.03, 7);
  scale_copy(measurements, 2, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_gpu});
  EXPECT_EQ(verdict.suspects[0].rank, 2);
  EXPECT_NEAR(verdict.suspects[0].ratio, 0.5, 0.5 * 0.07);
}

TEST(Verdict, ARankWhosePairsAreAllSlowIsOneSlowGpuNotSevenLinks) {
  Measurements measurements = healthy_machine(1, 8, 0.03, 3);
  scale_pairs_of(measurements, 3, 0.6);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_gpu});
  const Suspect& suspect = verdict.suspects[0];
  EXPECT_EQ(suspect.rank, 3);
  EXPECT_FALSE(suspect.peer);
  EXPECT_NEAR(suspect.ratio, 0.6, 0.6 * 0.07);
  ASSERT_EQ(suspect.evidence.size(), 1u);
  EXPECT_EQ(suspect.evidence[0].rfind("every pair with rank 3 is slow, the least of them ", 0), 0u)
      << suspect.evidence[0];
}

TEST(Verdict, OneSlowPairIsASlowLinkNamingBothRanks) {
  Measurements measurements = healthy_machine(1, 8);
  scale_pair(measurements, 2, 6, 0.5);
  scale_pair(measurements, 6, 2, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  const Suspect& suspect = verdict.suspects[0];
  EXPECT_EQ(suspect.kind, SuspectKind::slow_link);
  EXPECT_EQ(suspect.rank, 2);
  EXPECT_EQ(suspect.peer, 6);
  EXPECT_EQ(suspect.ranks, (std::vector<int>{2, 6}));
  EXPECT_EQ(suspect.ratio, 0.5);
  EXPECT_EQ(suspect.evidence,
            (std::vector<std::string>{"2->6 185 GB/s against the best pair's 370 (0.50×)",
                                      "6->2 185 GB/s against the best pair's 370 (0.50×)"}));
}

TEST(Verdict, NvlinkErrorsBackASlowLinkUp) {
  Measurements measurements = healthy_machine(1, 4);
  scale_pair(measurements, 3, 1, 0.5);
  gpu_of(measurements, 1).nvlink_replay = 14;
  gpu_of(measurements, 1).nvlink_crc = 3;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].rank, 1);
  EXPECT_EQ(verdict.suspects[0].peer, 3);
  EXPECT_EQ(verdict.suspects[0].evidence,
            (std::vector<std::string>{"3->1 185 GB/s against the best pair's 370 (0.50×)",
                                      "rank 1 NVLink errors: 14 replay, 0 recovery, 3 CRC"}));
}

TEST(Verdict, ASlowLatencyIsASlowLink) {
  Measurements measurements = healthy_machine(1, 4);
  scale_latency(measurements, 0, 2, 3);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link});
  EXPECT_EQ(verdict.suspects[0].figure, 24);
  EXPECT_EQ(verdict.suspects[0].ratio, 3);
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{"0->2 latency 24.0 us against the best pair's 8.0 (3.00×)"});
}

TEST(Verdict, NetworkPairsAreJudgedAgainstTheBestNetworkPair) {
  Measurements measurements = healthy_machine(2, 4);
  scale_pair(measurements, 1, 6, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{"1->6 22 GB/s against the best cross-host pair's 45 (0.50×)"});
}

TEST(Verdict, EveryGpuOfOneHostSlowIsOneSlowNode) {
  Measurements measurements = healthy_machine(2, 4, 0.03, 5);
  for (int rank = 4; rank < 8; ++rank) scale_copy(measurements, rank, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_node});
  const Suspect& node = verdict.suspects[0];
  EXPECT_EQ(node.host, "node-b");
  EXPECT_EQ(node.rank, 4);
  EXPECT_EQ(node.ranks, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(node.pci_bus_id, "");
  EXPECT_NEAR(node.ratio, 0.5, 0.5 * 0.07);
  ASSERT_EQ(node.evidence.size(), 4u);
  EXPECT_EQ(node.evidence[0].rfind("rank 4: copy ", 0), 0u) << node.evidence[0];
}

TEST(Verdict, EveryLinkCrossingFromOneHostSlowIsOneSlowNode) {
  Measurements measurements = healthy_machine(3, 2);
  for (int rank : {2, 3}) scale_pairs_of(measurements, rank, 0.5);
  scale_pair(measurements, 2, 3, 4);  // within node-b the links stay whole
  scale_pair(measurements, 3, 2, 4);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_node});
  EXPECT_EQ(verdict.suspects[0].host, "node-b");
  EXPECT_EQ(verdict.suspects[0].ranks, (std::vector<int>{2, 3}));
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{"every pair crossing from host node-b is slow, the least of "
                                     "them 0->2 22 GB/s against the best cross-host pair's 45 "
                                     "(0.50×)"});
}

TEST(Verdict, ALateRankIsAStragglerNotASlowGpu) {
  Measurements measurements = healthy_machine(1, 8, 0.03, 2);
  arrival_of(measurements, 6).mean_lateness_us = 2000;
  scale_pairs_of(measurements, 6, 0.3);  // its peers waited for it in every pair
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::straggler});
  const Suspect& straggler = verdict.suspects[0];
  EXPECT_EQ(straggler.rank, 6);
  EXPECT_EQ(straggler.figure, 2000);
  EXPECT_EQ(straggler.expectation, 175);  // max(50 us, 0.25 x 700 us)
  EXPECT_EQ(straggler.evidence,
            std::vector<std::string>{
                "launched 2000 us late on average against a limit of 175 us (11.43×)"});
}

// With two ranks the late one must not be its own alibi: the other rank's lateness decides.
TEST(Verdict, OneOfTwoRanksLateIsAStraggler) {
  Measurements measurements = healthy_machine(1, 2);
  arrival_of(measurements, 1).mean_lateness_us = 2000;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::straggler});
  EXPECT_EQ(verdict.suspects[0].rank, 1);
}

TEST(Verdict, NoStragglerWhenTheMedianRankIsLateToo) {
  Measurements measurements = healthy_machine(1, 4);
  for (int rank : {0, 1, 2}) arrival_of(measurements, rank).mean_lateness_us = 400;
  EXPECT_TRUE(judge(measurements).clean());
}

TEST(Verdict, AMissingRankComesFirst) {
  Measurements measurements = healthy_machine(1, 8);
  scale_copy(measurements, 1, 0.3);
  measurements.missing.push_back({4, "did not start all_reduce on ranks 0-7 within 30 s"});
  arrival_of(measurements, 4).mean_lateness_us = 30e6;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict),
            (std::vector<SuspectKind>{SuspectKind::missing_rank, SuspectKind::slow_gpu}));
  EXPECT_EQ(verdict.suspects[0].rank, 4);
  EXPECT_EQ(verdict.suspects[0].host, "node-a");
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{"did not start all_reduce on ranks 0-7 within 30 s"});
  EXPECT_EQ(verdict.suspects[1].rank, 1);
}

TEST(Verdict, UncorrectedEccErrorsMakeASlowGpu) {
  Measurements measurements = healthy_machine(1, 4);
  gpu_of(measurements, 2).ecc_uncorrected = 12;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].kind, SuspectKind::slow_gpu);
  EXPECT_EQ(verdict.suspects[0].ratio, 1);
  EXPECT_EQ(verdict.suspects[0].evidence, std::vector<std::string>{"12 uncorrected ECC errors"});
}

TEST(Verdict, ABrakedClockMakesASlowGpuOnlyWhileOthersRunFree) {
  Measurements measurements = healthy_machine(1, 4);
  gpu_of(measurements, 3).clock_event_reasons = 0x40 | 0x1;  // HW thermal, and idle (no brake)
  gpu_of(measurements, 3).sm_clock_mhz = 1200;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].rank, 3);
  EXPECT_EQ(
      verdict.suspects[0].evidence,
      std::vector<std::string>{
          "clock events HW thermal (0x40) while other GPUs have none; SM clock 1200 of 1980 MHz"});

  for (GpuFigures& gpu : measurements.gpus) gpu.clock_event_reasons = 0x80;
  EXPECT_TRUE(judge(measurements).clean());
}

TEST(Verdict, SuspectsGoBySeverityThenByRatio) {
  Measurements measurements = healthy_machine(1, 8);
  scale_copy(measurements, 1, 0.7);
  scale_copy(measurements, 6, 0.4);
  scale_pair(measurements, 2, 4, 0.2);
  arrival_of(measurements, 0).mean_lateness_us = 1000;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict),
            (std::vector<SuspectKind>{SuspectKind::slow_gpu, SuspectKind::slow_gpu,
                                      SuspectKind::slow_link, SuspectKind::straggler}));
  EXPECT_EQ(verdict.suspects[0].rank, 6);
  EXPECT_EQ(verdict.suspects[1].rank, 1);
}

TEST(Verdict, ASlowCollectiveAddsEvidenceToTheSuspectsOfItsSmallestGroup) {
  Measurements measurements = healthy_machine(1, 8);
  scale_copy(measurements, 5, 0.5);
  add_group(measurements, {0, 1, 2, 3, 4, 5, 6, 7}, 0.5);
  add_group(measurements, {0, 1, 2, 3}, 1);
  add_group(measurements, {4, 5, 6, 7}, 0.5);
  add_group(measurements, {4, 5}, 0.5);
  add_group(measurements, {6, 7}, 1);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].evidence,
            (std::vector<std::string>{"copy 745 GB/s against the best GPU's 1490 (0.50×)",
                                      "all_reduce on ranks 4,5: busbw 185 GB/s against the "
                                      "ring's 370 (0.50×)"}));
}

TEST(Verdict, ASlowPairOfRanksWithNothingElseToShowIsASlowLink) {
  Measurements measurements = healthy_machine(1, 8);
  add_group(measurements, {0, 1, 2, 3, 4, 5, 6, 7}, 0.5, "alltoall");
  add_group(measurements, {0, 1, 2, 3}, 0.5, "alltoall");
  add_group(measurements, {4, 5, 6, 7}, 1, "alltoall");
  add_group(measurements, {0, 1}, 1, "alltoall");
  add_group(measurements, {2, 3}, 0.5, "alltoall");
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  const Suspect& link = verdict.suspects[0];
  EXPECT_EQ(link.kind, SuspectKind::slow_link);
  EXPECT_EQ(link.rank, 2);
  EXPECT_EQ(link.peer, 3);
  EXPECT_EQ(link.ratio, 0.5);
  EXPECT_EQ(link.evidence, std::vector<std::string>{"alltoall on ranks 2,3: busbw 185 GB/s "
                                                    "against the ring's 370 (0.50×)"});
}

TEST(Verdict, ASlowGroupWhoseHalvesAreFineNamesTheWholeGroup) {
  // Across two hosts: a slow link between the hosts' halves, seen only in the collective.
  Measurements measurements = healthy_machine(2, 4);
  add_group(measurements, {0, 1, 2, 3, 4, 5, 6, 7}, 0.5, "all_gather");
  add_group(measurements, {0, 1, 2, 3}, 1, "all_gather");
  add_group(measurements, {4, 5, 6, 7}, 1, "all_gather");
  Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].kind, SuspectKind::slow_link);
  EXPECT_FALSE(verdict.suspects[0].peer);
  EXPECT_EQ(verdict.suspects[0].ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(verdict.suspects[0].host, "node-a,node-b");

  // On one host the same finding is the node's.
  measurements = healthy_machine(1, 8);
  add_group(measurements, {0, 1, 2, 3, 4, 5, 6, 7}, 0.5, "all_gather");
  add_group(measurements, {0, 1, 2, 3}, 1, "all_gather");
  add_group(measurements, {4, 5, 6, 7}, 1, "all_gather");
  verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_node});
  EXPECT_EQ(verdict.suspects[0].host, "node-a");
}

TEST(Verdict, BothHalvesSlowKeepTheWholeGroup) {
  Measurements measurements = healthy_machine(1, 8);
  add_group(measurements, {0, 1, 2, 3, 4, 5, 6, 7}, 0.5, "reduce_scatter");
  add_group(measurements, {0, 1, 2, 3}, 0.6, "reduce_scatter");
  add_group(measurements, {4, 5, 6, 7}, 0.6, "reduce_scatter");
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(verdict.suspects[0].evidence.size(), 1u);
}

TEST(Verdict, AGroupWithNoExpectationIsJudgedAgainstItsRing) {
  Measurements measurements = healthy_machine(1, 4);
  measurements.groups.clear();
  measurements.groups.push_back({{0, 1, 2, 3}, "all_reduce", 100, 700, 0});
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].expectation, 370);
  EXPECT_NEAR(*verdict.margins.collective, 100.0 / 370, 1e-12);
}

TEST(Verdict, GroupIsSlowOnlyAgainstAKnownExpectation) {
  const Thresholds thresholds;
  EXPECT_TRUE(group_is_slow({{0, 1}, "all_reduce", 79, 1, 100}, thresholds));
  EXPECT_FALSE(group_is_slow({{0, 1}, "all_reduce", 80, 1, 100}, thresholds));
  EXPECT_FALSE(group_is_slow({{0, 1}, "all_reduce", 79, 1, 0}, thresholds));
}

TEST(Verdict, KindNamesReadBack) {
  for (SuspectKind kind : {SuspectKind::missing_rank, SuspectKind::slow_gpu, SuspectKind::slow_node,
                           SuspectKind::slow_link, SuspectKind::straggler}) {
    EXPECT_EQ(kind_from_name(kind_name(kind)), kind);
  }
  EXPECT_FALSE(kind_from_name("fast_gpu"));
}

}  // namespace
}  // namespace collbench::diagnose
