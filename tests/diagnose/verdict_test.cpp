// The verdict's rules on simulated figures: clean runs with realistic noise come out clean, each
// fault other programs make comes out as the one suspect it is, and a flag counts only when its
// recheck agrees.
#include "verdict/verdict.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "simulated_machine.hpp"

namespace collbench::diagnose {
namespace {

using namespace simulated;

std::vector<SuspectKind> kinds(const Verdict& verdict) {
  std::vector<SuspectKind> kinds;
  for (const Suspect& suspect : verdict.suspects) kinds.push_back(suspect.kind);
  return kinds;
}

std::string first_line(const Verdict& verdict) {
  if (verdict.suspects.empty()) return "no suspect";
  const Suspect& suspect = verdict.suspects.front();
  return std::string(kind_name(suspect.kind)) + ": " + suspect.evidence.front();
}

bool has_line_containing(const Suspect& suspect, const std::string& part) {
  return std::any_of(suspect.evidence.begin(), suspect.evidence.end(),
                     [&](const std::string& line) { return line.find(part) != std::string::npos; });
}

bool has_line_starting(const Suspect& suspect, const std::string& start) {
  return std::any_of(suspect.evidence.begin(), suspect.evidence.end(),
                     [&](const std::string& line) { return line.rfind(start, 0) == 0; });
}

// The clean runs of one machine shape: none may name a suspect after its rechecks. Returns how
// many a single pass (no recheck) would have condemned, and counts the cleared figures.
int clean_runs_without_suspects(int hosts, int gpus_per_host, unsigned runs, int& cleared) {
  const Measurements truth = healthy_machine(hosts, gpus_per_host);
  int condemned_by_one_pass = 0;
  for (unsigned seed = 1; seed <= runs; ++seed) {
    Measurements measured = measure(truth, kRealisticNoise, seed);
    // One run in three has a passing hiccup: one pair's latency three times over.
    if (seed % 3 == 0) add_passing_outlier(measured, seed);
    if (!judge(measured).clean()) ++condemned_by_one_pass;
    const Verdict verdict = diagnose(truth, measured, kRealisticNoise, seed + 100000);
    EXPECT_TRUE(verdict.clean()) << hosts << "x" << gpus_per_host << " seed " << seed << ": "
                                 << first_line(verdict);
    cleared += static_cast<int>(verdict.cleared.size());
  }
  return condemned_by_one_pass;
}

TEST(Verdict, ThousandsOfCleanRunsWithRealisticNoiseHaveNoSuspect) {
  for (int gpus : {2, 4, 8}) {
    int cleared = 0;
    const int condemned = clean_runs_without_suspects(1, gpus, 1000, cleared);
    // The hiccups were big enough to flag: without their recheck they would have condemned.
    EXPECT_GT(condemned, 0) << gpus << " GPUs";
    EXPECT_EQ(cleared, condemned) << gpus << " GPUs";
  }
  int cleared = 0;
  clean_runs_without_suspects(2, 4, 200, cleared);
  clean_runs_without_suspects(4, 1, 200, cleared);
}

TEST(Verdict, TheReferenceIsTheMedianOfTheOthersAndTheirRobustSpread) {
  // Logarithms 0, 0.1, 0.2, 0.3, 0.4: median 0.2, absolute deviations 0.2, 0.1, 0, 0.1, 0.2.
  std::vector<double> figures;
  for (double log_figure : {0.0, 0.1, 0.2, 0.3, 0.4}) figures.push_back(std::exp(log_figure));
  const Reference all = reference_of(figures);
  EXPECT_NEAR(all.median, std::exp(0.2), 1e-12);
  EXPECT_NEAR(all.log_spread, 1.4826 * 0.1, 1e-12);
  EXPECT_EQ(all.figures, 5);
  // Without the last: the median is that of the figures (the mean of the middle two), m; the
  // middle two deviations of the logarithms, m - 0.1 and 0.3 - m, have their mean 0.1.
  const Reference others = reference_without(figures, 4);
  EXPECT_NEAR(others.median, (std::exp(0.1) + std::exp(0.2)) / 2, 1e-12);
  EXPECT_NEAR(others.log_spread, 1.4826 * 0.1, 1e-12);
  EXPECT_EQ(others.figures, 4);
  // Three others carry no spread; unmeasured figures (0) are none of them.
  const Reference few = reference_without({100, 0, 50, 200, 400}, 4);
  EXPECT_EQ(few.figures, 3);
  EXPECT_NEAR(few.median, 100, 1e-9);
  EXPECT_EQ(few.log_spread, 0);
}

TEST(Verdict, TheSpreadOfTwelveAndFiftySixPairsFlagsA07PairAndNotA093One) {
  for (int gpus : {4, 8}) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      Measurements slow = healthy_machine(1, gpus, kRealisticNoise, seed);
      scale_pair(slow, 1, 2, 0.7);
      const Verdict verdict = judge(slow);
      ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link})
          << gpus << " GPUs, seed " << seed;
      EXPECT_EQ(verdict.suspects[0].ranks, (std::vector<int>{1, 2}));
      EXPECT_GT(verdict.suspects[0].spreads, 5);

      Measurements fine = healthy_machine(1, gpus, kRealisticNoise, seed);
      scale_pair(fine, 1, 2, 0.93);
      EXPECT_TRUE(judge(fine).clean()) << gpus << " GPUs, seed " << seed;
    }
  }
}

TEST(Verdict, WithoutTheMinimumEffectTheSpreadAloneDecides) {
  Thresholds no_minimum;
  no_minimum.bandwidth_effect_ratio = 1;
  // Noise-free figures have no spread: the floor (2%) and the pair's own (1%) decide, so 0.93
  // stands 3.6 spreads off and 0.88 stands 6.4.
  Measurements measurements = healthy_machine(1, 4);
  scale_pair(measurements, 0, 3, 0.93);
  EXPECT_TRUE(judge(measurements, no_minimum).clean());
  scale_pair(measurements, 0, 3, 0.88 / 0.93);
  const Verdict verdict = judge(measurements, no_minimum);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link});
  EXPECT_NEAR(verdict.suspects[0].spreads, -std::log(0.88) / 0.02, 1e-9);
  // With the minimum effect of 0.85, 0.88 is too small to matter.
  EXPECT_TRUE(judge(measurements).clean());
}

TEST(Verdict, AFigureFlaggedWhoseRecheckIsFineIsCleared) {
  const Measurements truth = healthy_machine(1, 4);
  Measurements measured = truth;
  scale_latency(measured, 0, 1, 4);
  const RecheckRequest request = to_recheck(measured);
  EXPECT_TRUE(request.gpus.empty());
  EXPECT_EQ(request.pairs, (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_FALSE(request.arrivals);
  const Verdict verdict = diagnose(truth, measured, {}, 7);
  EXPECT_TRUE(verdict.clean()) << first_line(verdict);
  ASSERT_EQ(verdict.cleared.size(), 1u);
  const ClearedFigure& cleared = verdict.cleared[0];
  EXPECT_EQ(cleared.figure_kind, "pair_latency");
  EXPECT_EQ(cleared.ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(cleared.figure, 32);
  EXPECT_EQ(cleared.reference, 8);
  EXPECT_NEAR(cleared.spreads, std::log(4) / kLatencySpread, 1e-9);
  EXPECT_EQ(cleared.recheck, 8);
  EXPECT_EQ(cleared.line,
            "0->1 latency 32.0 us against 8.0 (17.3 spreads) cleared on recheck: "
            "8.0 us");
}

TEST(Verdict, AFlagWithoutARecheckStaysASuspectMarkedUnconfirmed) {
  Measurements measurements = healthy_machine(1, 4);
  scale_pair(measurements, 2, 3, 0.5);
  Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link});
  EXPECT_FALSE(verdict.suspects[0].confirmed);
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{
                "2->3 185 GB/s against 370 (0.50×, 34.7 spreads; unconfirmed, no recheck)"});

  // Measured again alone and slow again: confirmed, judged against the same reference.
  const Measurements truth = measurements;
  verdict = diagnose(truth, measurements, {}, 1);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link});
  EXPECT_TRUE(verdict.suspects[0].confirmed);
  EXPECT_EQ(
      verdict.suspects[0].evidence,
      std::vector<std::string>{"2->3 185 GB/s against 370 (0.50×, 34.7 spreads; recheck 185)"});
  EXPECT_TRUE(verdict.cleared.empty());
}

TEST(Verdict, ARecheckIsJudgedAgainstTheFirstPassReference) {
  // A recheck of 300 GB/s is 0.81× and 10.5 spreads below the first pass's 370: slow again. One
  // of 340 (0.92×) is fine.
  Measurements measurements = healthy_machine(1, 4);
  scale_pair(measurements, 2, 3, 0.5);
  PairFigures again = pair_of(measurements, 2, 3);
  again.bandwidth_gbps = 300;
  measurements.rechecks.pairs = {again};
  EXPECT_EQ(kinds(judge(measurements)), std::vector<SuspectKind>{SuspectKind::slow_link});
  measurements.rechecks.pairs[0].bandwidth_gbps = 340;
  const Verdict verdict = judge(measurements);
  EXPECT_TRUE(verdict.clean());
  ASSERT_EQ(verdict.cleared.size(), 1u);
  EXPECT_EQ(verdict.cleared[0].line,
            "2->3 185 GB/s against 370 (34.7 spreads) cleared on recheck: 340 GB/s");
}

TEST(Verdict, ABusyGpuIsASlowGpuFirstAndAlone) {
  for (int gpus : {4, 8}) {
    for (unsigned seed = 1; seed <= 10; ++seed) {
      Measurements truth = healthy_machine(1, gpus);
      make_busy_gpu(truth, 2);
      // The bisection of the slow collectives, down to the half holding rank 2.
      add_group(truth, {0, 1}, 1);
      add_group(truth, {2, 3}, 0.5);
      const Measurements measured = measure(truth, kRealisticNoise, seed);
      const Verdict verdict = diagnose(truth, measured, kRealisticNoise, seed + 50);
      ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_gpu})
          << gpus << " GPUs, seed " << seed << ": " << first_line(verdict);
      const Suspect& gpu = verdict.suspects[0];
      EXPECT_EQ(gpu.rank, 2);
      EXPECT_TRUE(gpu.confirmed);
      EXPECT_TRUE(has_line_starting(gpu, "copy ")) << gpu.evidence[0];
      EXPECT_TRUE(has_line_containing(gpu, " late on the GPU while its host launched on time"));
      EXPECT_TRUE(has_line_starting(gpu, "2 other processes on this GPU"));
      EXPECT_TRUE(has_line_starting(gpu, "its pairs: "));
      EXPECT_TRUE(has_line_starting(gpu, "all_reduce on ranks 2,3: "));
    }
  }
}

TEST(Verdict, ABusyGpuSlowInComputeAndCopyStaysASlowGpuBesideItsSlowPairs) {
  // As another process's GEMMs did on an H100: compute 0.5×, copy 0.46×, every pair of it slow,
  // late on the GPU with its host on time. Its slow pairs do not make its copy the links'.
  for (int gpus : {4, 8}) {
    for (unsigned seed = 1; seed <= 10; ++seed) {
      Measurements truth = healthy_machine(1, gpus);
      make_busy_gpu(truth, 2);
      scale_copy(truth, 2, 0.46 / 0.5);
      const Verdict verdict =
          diagnose(truth, measure(truth, kRealisticNoise, seed), kRealisticNoise, seed + 50);
      ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_gpu})
          << gpus << " GPUs, seed " << seed << ": " << first_line(verdict);
      const Suspect& gpu = verdict.suspects[0];
      EXPECT_EQ(gpu.rank, 2);
      EXPECT_TRUE(gpu.confirmed);
      EXPECT_TRUE(has_line_starting(gpu, "copy "));
      EXPECT_TRUE(has_line_starting(gpu, "compute "));
      EXPECT_TRUE(has_line_containing(gpu, " late on the GPU while its host launched on time"));
      EXPECT_TRUE(has_line_starting(gpu, "its pairs: "));
      EXPECT_FALSE(has_line_containing(gpu, "links' traffic"));
    }
  }
}

TEST(Verdict, ComputeSlowAloneIsASlowGpu) {
  Measurements truth = healthy_machine(1, 4);
  scale_compute(truth, 2, 0.5);
  const RecheckRequest request = to_recheck(truth);
  EXPECT_EQ(request.gpus, std::vector<int>{2});
  EXPECT_TRUE(request.pairs.empty());
  const Verdict verdict = diagnose(truth, truth, {}, 1);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_gpu});
  const Suspect& gpu = verdict.suspects[0];
  EXPECT_EQ(gpu.rank, 2);
  EXPECT_TRUE(gpu.confirmed);
  EXPECT_EQ(gpu.figure, 30);
  EXPECT_EQ(gpu.reference, 60);
  EXPECT_EQ(gpu.evidence,
            std::vector<std::string>{
                "compute 30.0 TFLOP/s against 60.0 (0.50×, 34.7 spreads; recheck 30.0)"});

  for (unsigned seed = 1; seed <= 20; ++seed) {
    Measurements noisy = healthy_machine(1, 8);
    scale_compute(noisy, 5, 0.7);
    const Verdict verdict =
        diagnose(noisy, measure(noisy, kRealisticNoise, seed), kRealisticNoise, seed + 9);
    ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_gpu})
        << "seed " << seed << ": " << first_line(verdict);
    EXPECT_EQ(verdict.suspects[0].rank, 5);
    EXPECT_TRUE(has_line_starting(verdict.suspects[0], "compute ")) << first_line(verdict);
  }
}

TEST(Verdict, AComputeFlagWhoseRecheckIsFineIsCleared) {
  const Measurements truth = healthy_machine(1, 4);
  Measurements measured = truth;
  scale_compute(measured, 0, 0.5);
  const Verdict verdict = diagnose(truth, measured, {}, 1);
  EXPECT_TRUE(verdict.clean()) << first_line(verdict);
  ASSERT_EQ(verdict.cleared.size(), 1u);
  EXPECT_EQ(verdict.cleared[0].figure_kind, "compute");
  EXPECT_EQ(verdict.cleared[0].ranks, std::vector<int>{0});
  EXPECT_EQ(verdict.cleared[0].line,
            "rank 0 compute 30.0 TFLOP/s against 60.0 (34.7 spreads) cleared on recheck: "
            "60.0 TFLOP/s");
}

TEST(Verdict, AGpuLateWhileItsHostIsOnTimeIsASlowGpuEvenWithAFineCopy) {
  const Measurements truth = [] {
    Measurements machine = healthy_machine(1, 4);
    arrival_of(machine, 1).gpu_lateness_us = 300;
    return machine;
  }();
  const RecheckRequest request = to_recheck(truth);
  EXPECT_TRUE(request.arrivals);
  const Verdict verdict = diagnose(truth, truth, {}, 1);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_gpu});
  EXPECT_EQ(verdict.suspects[0].rank, 1);
  EXPECT_EQ(verdict.suspects[0].figure, 300);
  EXPECT_EQ(verdict.suspects[0].reference, 35);  // 0.05 x 700 us, above the others' noise
  ASSERT_EQ(verdict.suspects[0].evidence.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].evidence[0].rfind(
                "arrived 300 us late on the GPU while its host launched on time (3 us) against a "
                "limit of 35 us (",
                0),
            0u)
      << verdict.suspects[0].evidence[0];
}

TEST(Verdict, OtherProcessesAloneAreNoSuspect) {
  Measurements measurements = healthy_machine(1, 4);
  gpu_of(measurements, 3).other_processes = 3;
  EXPECT_TRUE(judge(measurements).clean());
}

TEST(Verdict, AStarvedHostIsAStarvedHostAloneNotALinkBetweenOthers) {
  Measurements truth = healthy_machine(1, 4);
  make_starved_host(truth, 1);
  Measurements measured = measure(truth, kRealisticNoise, 3);
  // Its starved process upset the timing of a transfer between two other ranks once.
  scale_pair(measured, 2, 3, 0.5);
  const Verdict verdict = diagnose(truth, measured, kRealisticNoise, 4);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::starved_host})
      << first_line(verdict);
  const Suspect& host = verdict.suspects[0];
  EXPECT_EQ(host.rank, 1);
  EXPECT_TRUE(has_line_starting(host, "its host launched ")) << host.evidence[0];
  EXPECT_TRUE(has_line_starting(host, "all_reduce on ranks 0,1,2,3: "));
  ASSERT_EQ(verdict.cleared.size(), 1u);
  EXPECT_EQ(verdict.cleared[0].figure_kind, "pair_bandwidth");
  EXPECT_EQ(verdict.cleared[0].ranks, (std::vector<int>{2, 3}));
}

TEST(Verdict, ALateRankWithNoHostClockToCompareIsAStraggler) {
  Measurements measurements = healthy_machine(4, 1);
  arrival_of(measurements, 2).gpu_lateness_us = 2000;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::straggler});
  EXPECT_EQ(verdict.suspects[0].rank, 2);
  EXPECT_FALSE(verdict.suspects[0].confirmed);
  EXPECT_EQ(verdict.suspects[0].evidence[0].rfind("arrived 2000 us late on the GPU against a limit "
                                                  "of 35 us (",
                                                  0),
            0u)
      << verdict.suspects[0].evidence[0];
}

TEST(Verdict, ALateArrivalWhoseRecheckIsOnTimeIsCleared) {
  const Measurements truth = healthy_machine(1, 4);
  Measurements measured = truth;
  arrival_of(measured, 0).gpu_lateness_us = 900;
  const Verdict verdict = diagnose(truth, measured, {}, 1);
  EXPECT_TRUE(verdict.clean()) << first_line(verdict);
  ASSERT_EQ(verdict.cleared.size(), 1u);
  EXPECT_EQ(verdict.cleared[0].figure_kind, "arrival");
  EXPECT_EQ(verdict.cleared[0].recheck, kGpuLatenessUs);
}

TEST(Verdict, LinkLoadFromOneGpuToAnotherIsOneMergedEndpointSuspect) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    Measurements truth = healthy_machine(1, 4);
    load_link(truth, 1, 3);
    const Verdict verdict =
        diagnose(truth, measure(truth, kRealisticNoise, seed), kRealisticNoise, seed + 7);
    ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::link_endpoint})
        << "seed " << seed << ": " << first_line(verdict);
    const Suspect& link = verdict.suspects[0];
    EXPECT_EQ(link.direction, "1->3");
    EXPECT_EQ(link.rank, 1);
    EXPECT_EQ(link.peer, 3);
    EXPECT_EQ(link.ranks, (std::vector<int>{1, 3}));
    EXPECT_NEAR(link.ratio, 0.36, 0.36 * 0.07);
    ASSERT_EQ(link.evidence.size(), 2u);
    EXPECT_EQ(link.evidence[0].rfind("rank 1 sending: 3 of 3 pairs slow (the slowest 1->3 ", 0), 0u)
        << link.evidence[0];
    EXPECT_EQ(link.evidence[1].rfind("rank 3 receiving: 3 of 3 pairs slow (the slowest 1->3 ", 0),
              0u)
        << link.evidence[1];
  }
}

// Another program's peer copies between two GPUs both ways slow their pairs and, through the
// memory the links' traffic shares, their copies (0.78× on an H100), not their compute.
Measurements link_load_both_ways(int gpus, int a, int b, double copy_share) {
  Measurements truth = healthy_machine(1, gpus);
  load_link(truth, a, b);
  load_link(truth, b, a);
  for (int rank : {a, b}) scale_copy(truth, rank, copy_share);
  return truth;
}

const std::string kLinkTraffic =
    " while its compute is normal: its memory carries the links' "
    "traffic too";

TEST(Verdict, LinkLoadBothWaysNamesOnlyLinksThoughItSlowsTheCopiesOfItsEnds) {
  for (int gpus : {4, 8}) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      const Measurements truth = link_load_both_ways(gpus, 1, 3, 0.78);
      const Verdict verdict =
          diagnose(truth, measure(truth, kRealisticNoise, seed), kRealisticNoise, seed + 7);
      ASSERT_FALSE(verdict.clean()) << gpus << " GPUs, seed " << seed;
      for (const Suspect& suspect : verdict.suspects) {
        EXPECT_TRUE(suspect.kind == SuspectKind::link_endpoint ||
                    suspect.kind == SuspectKind::slow_link)
            << gpus << " GPUs, seed " << seed << ": " << kind_name(suspect.kind) << ": "
            << suspect.evidence.front();
        const auto names = [&](int rank) {
          return suspect.rank == rank ||
                 std::find(suspect.ranks.begin(), suspect.ranks.end(), rank) != suspect.ranks.end();
        };
        EXPECT_TRUE(names(1) || names(3)) << gpus << " GPUs, seed " << seed;
      }
      for (int rank : {1, 3}) {
        const std::string start = "rank " + std::to_string(rank) + "'s local copy ";
        EXPECT_TRUE(std::any_of(verdict.suspects.begin(), verdict.suspects.end(),
                                [&](const Suspect& suspect) {
                                  return has_line_starting(suspect, start) &&
                                         has_line_containing(suspect, kLinkTraffic);
                                }))
            << gpus << " GPUs, seed " << seed << ": rank " << rank << ", " << first_line(verdict);
      }
    }
  }
  // Without noise, on 4 GPUs: every pair of ranks 1 and 3 is slow, 10 of 12; the reference is
  // the healthy band (0->2, 2->0), so each end is one suspect, both directions, with its copy.
  const Measurements truth = link_load_both_ways(4, 1, 3, 0.78);
  const Verdict verdict = diagnose(truth, truth, {}, 1);
  ASSERT_EQ(kinds(verdict),
            (std::vector<SuspectKind>{SuspectKind::link_endpoint, SuspectKind::link_endpoint}));
  for (std::size_t i = 0; i < 2; ++i) {
    const Suspect& end = verdict.suspects[i];
    const int rank = i == 0 ? 1 : 3;
    EXPECT_EQ(end.ranks, std::vector<int>{rank});
    EXPECT_EQ(end.direction, "both");
    EXPECT_TRUE(end.confirmed);
    ASSERT_EQ(end.evidence.size(), 2u);
    EXPECT_EQ(end.evidence[0],
              fmt::format("rank {}, both directions: 6 of 6 pairs slow (the slowest "
                          "{}->{} 133 GB/s against 370, 0.36×)",
                          rank, rank, 4 - rank));
    EXPECT_EQ(end.evidence[1],
              fmt::format("rank {}'s local copy 1162 GB/s, 0.78× the others' (12.4 "
                          "spreads)",
                          rank) +
                  kLinkTraffic);
  }
}

// Two GPUs, their one link loaded both ways (2xH100: 118 of 360 GB/s each way): every pair is
// slow alike, so only a healthy machine's link peak (--link-peak, 396 GB/s there) shows it; a
// clean run stays clean against it, noise and all.
TEST(Verdict, TwoGpusLoadedBothWaysShowOnlyAgainstTheLinkPeak) {
  const double link_peak_gbps = kNvlinkGbps / 0.91;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    Measurements clean = healthy_machine(1, 2);
    clean.link_peak_gbps = link_peak_gbps;
    EXPECT_TRUE(
        diagnose(clean, measure(clean, kRealisticNoise, seed), kRealisticNoise, seed + 7).clean())
        << "seed " << seed;
  }
  Measurements truth = healthy_machine(1, 2);
  scale_pair(truth, 0, 1, 0.33);
  scale_pair(truth, 1, 0, 0.33);
  EXPECT_TRUE(diagnose(truth, truth, {}, 1).clean());  // nothing to compare with
  truth.link_peak_gbps = link_peak_gbps;
  const Verdict verdict = diagnose(truth, truth, {}, 1);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link})
      << first_line(verdict);
  EXPECT_EQ(verdict.suspects[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_TRUE(verdict.suspects[0].confirmed);
  EXPECT_TRUE(has_line_starting(verdict.suspects[0], "0->1 122 GB/s against the link peak 407"))
      << first_line(verdict);
}

TEST(Verdict, LinkLoadOneWayCarriesTheCopiesOfBothItsEnds) {
  Measurements truth = healthy_machine(1, 8);
  load_link(truth, 1, 3);
  for (int rank : {1, 3}) scale_copy(truth, rank, 0.78);
  const Verdict verdict = diagnose(truth, truth, {}, 1);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::link_endpoint})
      << first_line(verdict);
  const Suspect& link = verdict.suspects[0];
  EXPECT_EQ(link.direction, "1->3");
  EXPECT_TRUE(has_line_starting(link, "rank 1's local copy 1162 GB/s"));
  EXPECT_TRUE(has_line_starting(link, "rank 3's local copy 1162 GB/s"));
}

TEST(Verdict, ACopySlowWithComputeNormalAndNoSlowLinkIsASlowGpu) {
  // Degraded memory, or another program's memory-heavy work: nothing on the links explains it.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    Measurements truth = healthy_machine(1, 4);
    for (int rank : {1, 3}) scale_copy(truth, rank, 0.78);
    const Verdict verdict =
        diagnose(truth, measure(truth, kRealisticNoise, seed), kRealisticNoise, seed + 7);
    ASSERT_EQ(kinds(verdict),
              (std::vector<SuspectKind>{SuspectKind::slow_gpu, SuspectKind::slow_gpu}))
        << "seed " << seed << ": " << first_line(verdict);
    for (const Suspect& gpu : verdict.suspects) {
      EXPECT_TRUE(gpu.rank == 1 || gpu.rank == 3) << gpu.rank;
      EXPECT_TRUE(gpu.confirmed);
      ASSERT_EQ(gpu.evidence.size(), 1u);
      EXPECT_EQ(gpu.evidence[0].rfind("copy ", 0), 0u) << gpu.evidence[0];
    }
  }
}

TEST(Verdict, ACopySlowBesideAnotherRanksLinkLoadIsItsOwn) {
  // Rank 1's pairs 0->1 and 1->3 are slow, but for ranks 0 and 3: no link suspect names rank 1.
  Measurements truth = healthy_machine(1, 8);
  load_link(truth, 0, 3);
  scale_copy(truth, 1, 0.78);
  const Verdict verdict = diagnose(truth, truth, {}, 1);
  ASSERT_EQ(kinds(verdict),
            (std::vector<SuspectKind>{SuspectKind::slow_gpu, SuspectKind::link_endpoint}))
      << first_line(verdict);
  EXPECT_EQ(verdict.suspects[0].rank, 1);
  EXPECT_EQ(verdict.suspects[0].evidence[0].rfind("copy 1162 GB/s against 1490 (0.78×", 0), 0u)
      << verdict.suspects[0].evidence[0];
  EXPECT_EQ(verdict.suspects[1].direction, "0->3");
  EXPECT_FALSE(has_line_containing(verdict.suspects[1], "links' traffic"));
}

TEST(Verdict, WithoutAComputeFigureASlowCopyStaysTheGpus) {
  // A GPU side that measured no compute cannot tell link traffic from time slicing.
  Measurements truth = link_load_both_ways(4, 1, 3, 0.78);
  for (GpuFigures& gpu : truth.gpus) gpu.compute_tflops = 0;
  const Verdict verdict = diagnose(truth, truth, {}, 1);
  ASSERT_EQ(kinds(verdict),
            (std::vector<SuspectKind>{SuspectKind::slow_gpu, SuspectKind::slow_gpu}))
      << first_line(verdict);
  EXPECT_FALSE(verdict.margins.compute);
}

TEST(Verdict, EveryPairOfARankBothWaysIsOneEndpointNotASlowGpu) {
  for (int gpus : {4, 8}) {
    Measurements truth = healthy_machine(1, gpus);
    scale_pairs_of(truth, 1, 0.5);
    const Verdict verdict = diagnose(truth, measure(truth, kRealisticNoise, 5), kRealisticNoise, 6);
    ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::link_endpoint})
        << first_line(verdict);
    const Suspect& endpoint = verdict.suspects[0];
    EXPECT_EQ(endpoint.rank, 1);
    EXPECT_EQ(endpoint.direction, "both");
    const std::string pairs = std::to_string(2 * (gpus - 1));
    ASSERT_EQ(endpoint.evidence.size(), 1u);
    EXPECT_EQ(
        endpoint.evidence[0].rfind(
            "rank 1, both directions: " + pairs + " of " + pairs + " pairs slow (the slowest ", 0),
        0u)
        << endpoint.evidence[0];
  }
}

TEST(Verdict, EverySendOfOneRankSlowIsItsSendingSide) {
  Measurements truth = healthy_machine(1, 8);
  for (int dst = 0; dst < 8; ++dst) {
    if (dst != 5) scale_pair(truth, 5, dst, 0.6);
  }
  const Verdict verdict = diagnose(truth, measure(truth, kRealisticNoise, 2), kRealisticNoise, 3);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::link_endpoint})
      << first_line(verdict);
  EXPECT_EQ(verdict.suspects[0].direction, "send");
  EXPECT_EQ(verdict.suspects[0].ranks, std::vector<int>{5});
  EXPECT_EQ(verdict.suspects[0].evidence[0].rfind("rank 5 sending: 7 of 7 pairs slow", 0), 0u)
      << verdict.suspects[0].evidence[0];
}

TEST(Verdict, OneSlowPairIsASlowLinkNamingBothRanks) {
  Measurements measurements = healthy_machine(1, 8);
  scale_pair(measurements, 2, 6, 0.5);
  scale_pair(measurements, 6, 2, 0.5);
  const Verdict verdict = diagnose(measurements, measurements, {}, 1);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  const Suspect& suspect = verdict.suspects[0];
  EXPECT_EQ(suspect.kind, SuspectKind::slow_link);
  EXPECT_EQ(suspect.rank, 2);
  EXPECT_EQ(suspect.peer, 6);
  EXPECT_EQ(suspect.ranks, (std::vector<int>{2, 6}));
  EXPECT_EQ(suspect.direction, "");
  EXPECT_EQ(suspect.ratio, 0.5);
  EXPECT_EQ(suspect.reference, 370);
  EXPECT_EQ(suspect.evidence, (std::vector<std::string>{
                                  "2->6 185 GB/s against 370 (0.50×, 34.7 spreads; recheck 185)",
                                  "6->2 185 GB/s against 370 (0.50×, 34.7 spreads; recheck 185)"}));
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
  EXPECT_EQ(verdict.suspects[0].evidence[1], "rank 1 NVLink errors: 14 replay, 0 recovery, 3 CRC");
}

TEST(Verdict, ASlowLatencyIsASlowLink) {
  Measurements measurements = healthy_machine(1, 4);
  scale_latency(measurements, 0, 2, 3);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link});
  EXPECT_EQ(verdict.suspects[0].figure, 24);
  EXPECT_EQ(verdict.suspects[0].ratio, 3);
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{"0->2 latency 24.0 us against 8.0 (3.00×, 13.7 spreads; "
                                     "unconfirmed, no recheck)"});
}

TEST(Verdict, NetworkPairsAreJudgedAgainstTheOtherNetworkPairs) {
  Measurements measurements = healthy_machine(2, 4);
  scale_pair(measurements, 1, 6, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{"1->6 across hosts 22 GB/s against 45 (0.50×, 34.7 spreads; "
                                     "unconfirmed, no recheck)"});
}

TEST(Verdict, EveryGpuOfOneHostSlowIsOneSlowNode) {
  Measurements measurements = healthy_machine(4, 2, kRealisticNoise, 5);
  for (int rank : {4, 5}) scale_copy(measurements, rank, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_node})
      << first_line(verdict);
  const Suspect& node = verdict.suspects[0];
  EXPECT_EQ(node.host, "node-c");
  EXPECT_EQ(node.rank, 4);
  EXPECT_EQ(node.ranks, (std::vector<int>{4, 5}));
  EXPECT_EQ(node.pci_bus_id, "");
  EXPECT_NEAR(node.ratio, 0.5, 0.5 * 0.07);
  ASSERT_EQ(node.evidence.size(), 2u);
  EXPECT_EQ(node.evidence[0].rfind("rank 4: copy ", 0), 0u) << node.evidence[0];
}

TEST(Verdict, EveryLinkCrossingFromOneHostSlowIsOneSlowNode) {
  // Five hosts: one host's crossings are 32 of the 80, so the others' median is a healthy pair's.
  // (With four hosts or fewer they would be half or more of their class: no median sees them.)
  Measurements measurements = healthy_machine(5, 2);
  for (int rank : {2, 3}) scale_pairs_of(measurements, rank, 0.5);
  scale_pair(measurements, 2, 3, 4);  // within node-b the links stay whole
  scale_pair(measurements, 3, 2, 4);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_node})
      << first_line(verdict);
  EXPECT_EQ(verdict.suspects[0].host, "node-b");
  EXPECT_EQ(verdict.suspects[0].ranks, (std::vector<int>{2, 3}));
  EXPECT_FALSE(verdict.suspects[0].confirmed);
  EXPECT_EQ(verdict.suspects[0].evidence,
            std::vector<std::string>{"all 32 pairs crossing from host node-b are slow, the least "
                                     "of them 0->2 across hosts 22 GB/s against 45, 0.50×"});
}

TEST(Verdict, AMissingRankComesFirst) {
  Measurements measurements = healthy_machine(1, 8);
  scale_copy(measurements, 1, 0.3);
  measurements.missing.push_back({4, "did not start all_reduce on ranks 0-7 within 30 s"});
  arrival_of(measurements, 4).gpu_lateness_us = 30e6;
  scale_pairs_of(measurements, 4, 0.1);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict),
            (std::vector<SuspectKind>{SuspectKind::missing_rank, SuspectKind::slow_gpu}))
      << first_line(verdict);
  EXPECT_EQ(verdict.suspects[0].rank, 4);
  EXPECT_EQ(verdict.suspects[0].host, "node-a");
  EXPECT_EQ(verdict.suspects[0].evidence[0], "did not start all_reduce on ranks 0-7 within 30 s");
  EXPECT_TRUE(has_line_starting(verdict.suspects[0], "its pairs: 14 of 14 pairs slow"));
  EXPECT_EQ(verdict.suspects[1].rank, 1);
  EXPECT_EQ(to_recheck(measurements).pairs, (std::vector<std::pair<int, int>>{}));
  EXPECT_EQ(to_recheck(measurements).gpus, std::vector<int>{1});
}

TEST(Verdict, UncorrectedEccErrorsMakeASlowGpu) {
  Measurements measurements = healthy_machine(1, 4);
  gpu_of(measurements, 2).ecc_uncorrected = 12;
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(verdict.suspects.size(), 1u);
  EXPECT_EQ(verdict.suspects[0].kind, SuspectKind::slow_gpu);
  EXPECT_TRUE(verdict.suspects[0].confirmed);
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

TEST(Verdict, SuspectsGoBySeverityThenBySpreads) {
  Measurements measurements = healthy_machine(1, 8);
  scale_copy(measurements, 1, 0.7);
  scale_copy(measurements, 6, 0.4);
  scale_pair(measurements, 2, 4, 0.2);
  make_starved_host(measurements, 0);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict),
            (std::vector<SuspectKind>{SuspectKind::slow_gpu, SuspectKind::slow_gpu,
                                      SuspectKind::starved_host, SuspectKind::slow_link}));
  EXPECT_EQ(verdict.suspects[0].rank, 6);
  EXPECT_EQ(verdict.suspects[1].rank, 1);
  EXPECT_GT(verdict.suspects[0].spreads, verdict.suspects[1].spreads);
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
            (std::vector<std::string>{
                "copy 745 GB/s against 1490 (0.50×, 34.7 spreads; unconfirmed, no recheck)",
                "all_reduce on ranks 4,5: busbw 185 GB/s against the ring's 370 (0.50×)"}));
}

TEST(Verdict, ASlowCollectiveBesideASlowLinkGoesToTheLink) {
  Measurements measurements = healthy_machine(1, 4);
  scale_pair(measurements, 0, 1, 0.5);
  add_group(measurements, {0, 1}, 0.5);
  add_group(measurements, {2, 3}, 1);
  measurements.groups.erase(measurements.groups.begin());  // the all-rank all_reduce: fine
  add_group(measurements, {0, 1, 2, 3}, 0.5);
  const Verdict verdict = judge(measurements);
  ASSERT_EQ(kinds(verdict), std::vector<SuspectKind>{SuspectKind::slow_link});
  EXPECT_EQ(verdict.suspects[0].evidence.back().rfind("all_reduce on ranks 0,1: ", 0), 0u)
      << verdict.suspects[0].evidence.back();
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
  EXPECT_EQ(link.spreads, 0);
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

  // On one host the same finding is the node's; never a GPU's.
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
  EXPECT_EQ(verdict.suspects[0].reference, 370);
  ASSERT_TRUE(verdict.margins.collective);
  EXPECT_NEAR(verdict.margins.collective->ratio, 100.0 / 370, 1e-12);
  EXPECT_FALSE(verdict.margins.collective->spreads);
}

TEST(Verdict, GroupIsSlowOnlyAgainstAKnownExpectation) {
  const Thresholds thresholds;
  EXPECT_TRUE(group_is_slow({{0, 1}, "all_reduce", 79, 1, 100}, thresholds));
  EXPECT_FALSE(group_is_slow({{0, 1}, "all_reduce", 80, 1, 100}, thresholds));
  EXPECT_FALSE(group_is_slow({{0, 1}, "all_reduce", 79, 1, 0}, thresholds));
}

TEST(Verdict, ACleanRunGivesItsMarginsInSpreads) {
  Measurements measurements = healthy_machine(1, 4);
  scale_latency(measurements, 0, 1, 1.2);
  scale_pair(measurements, 2, 0, 0.95);
  scale_copy(measurements, 3, 0.97);
  scale_compute(measurements, 1, 0.98);
  arrival_of(measurements, 2).gpu_lateness_us = 14;
  const Verdict verdict = judge(measurements);
  ASSERT_TRUE(verdict.clean()) << first_line(verdict);
  const Margins& margins = verdict.margins;
  ASSERT_TRUE(margins.copy && margins.compute && margins.pair_bandwidth && margins.pair_latency &&
              margins.collective && margins.arrival);
  EXPECT_EQ(margins.compute->worst, "rank 1");
  EXPECT_NEAR(*margins.compute->spreads, -std::log(0.98) / 0.02, 1e-9);
  EXPECT_EQ(margins.pair_latency->worst, "0->1");
  EXPECT_NEAR(margins.pair_latency->ratio, 1.2, 1e-12);
  EXPECT_NEAR(*margins.pair_latency->spreads, std::log(1.2) / kLatencySpread, 1e-9);
  EXPECT_EQ(margins.pair_bandwidth->worst, "2->0");
  EXPECT_NEAR(*margins.pair_bandwidth->spreads, -std::log(0.95) / 0.02, 1e-9);
  EXPECT_EQ(margins.copy->worst, "rank 3");
  EXPECT_NEAR(*margins.copy->spreads, -std::log(0.97) / 0.02, 1e-9);
  EXPECT_EQ(margins.collective->ratio, 1);
  EXPECT_EQ(margins.arrival->worst, "rank 2");
  EXPECT_EQ(margins.arrival->figure, 14);
  EXPECT_EQ(margins.arrival->reference, 35);
  EXPECT_LT(*margins.arrival->spreads, 0);
}

TEST(Verdict, NothingMeasuredLeavesTheMarginsAbsent) {
  const Verdict verdict = judge(Measurements{});
  EXPECT_TRUE(verdict.clean());
  EXPECT_FALSE(verdict.margins.copy || verdict.margins.compute || verdict.margins.pair_bandwidth ||
               verdict.margins.pair_latency || verdict.margins.collective ||
               verdict.margins.arrival);
  EXPECT_TRUE(to_recheck(Measurements{}).empty());
}

TEST(Verdict, ToRecheckListsTheFlaggedGpusPairsAndArrivals) {
  Measurements measurements = healthy_machine(1, 4, kRealisticNoise, 9);
  scale_copy(measurements, 3, 0.6);
  scale_pair(measurements, 0, 2, 0.5);
  scale_latency(measurements, 1, 0, 4);
  arrival_of(measurements, 1).gpu_lateness_us = 500;
  const RecheckRequest request = to_recheck(measurements);
  EXPECT_EQ(request.gpus, std::vector<int>{3});
  EXPECT_EQ(request.pairs, (std::vector<std::pair<int, int>>{{0, 2}, {1, 0}}));
  EXPECT_TRUE(request.arrivals);
  EXPECT_FALSE(request.empty());
  // The rechecks already there change nothing: the request is the first pass's.
  measurements.rechecks = recheck(measurements, request, {}, 1);
  EXPECT_EQ(to_recheck(measurements).pairs, request.pairs);
}

TEST(Verdict, KindNamesReadBack) {
  for (SuspectKind kind :
       {SuspectKind::missing_rank, SuspectKind::slow_gpu, SuspectKind::starved_host,
        SuspectKind::slow_node, SuspectKind::link_endpoint, SuspectKind::slow_link,
        SuspectKind::straggler}) {
    EXPECT_EQ(kind_from_name(kind_name(kind)), kind);
  }
  EXPECT_FALSE(kind_from_name("fast_gpu"));
  EXPECT_EQ(kind_names(),
            "missing_rank, slow_gpu, starved_host, slow_node, link_endpoint, slow_link, straggler");
}

TEST(Verdict, EveryThresholdHasANameAndHelp) {
  Thresholds thresholds;
  std::vector<std::string> names;
  for (const ThresholdSetting& setting : threshold_settings()) {
    names.push_back(setting.name);
    EXPECT_GT(std::string(setting.help).size(), 20u) << setting.name;
    EXPECT_GT(thresholds.*(setting.value), 0) << setting.name;
  }
  EXPECT_EQ(names.size(), 12u);
  EXPECT_EQ(thresholds.arrival_rule().spread_factor, thresholds.spread_factor);
}

}  // namespace
}  // namespace collbench::diagnose
