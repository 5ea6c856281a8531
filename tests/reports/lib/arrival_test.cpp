// Tests of the arrival rule on simulated collectives: a late rank is named with its cause, the
// ranks that waited for it are not, and clean runs with realistic jitter name nobody.
#include "reports/arrival.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "reports/statistics.hpp"

namespace collbench::stats {
namespace {

using Table = std::vector<std::vector<double>>;  // [rank][sample]

// What makes ranks late in a simulated run.
struct Fault {
  std::vector<int> ranks;    // the late ranks
  double host_delay_us = 0;  // their host launches this late (the GPU follows unless gated)
  double gpu_delay_us = 0;   // their GPU starts this late after an on-time launch
  bool start_gate = false;   // a gate on the GPUs waits for every launch: durations stay equal
};

// Noise of a clean machine.
struct Jitter {
  double launch_mean_us = 2;  // exponential launch skew of each rank's thread
  double arrival_sd_us = 3;   // normal GPU arrival jitter after the launch
  double end_sd_us = 1;       // normal jitter of each rank's end event
  double hiccup_chance = 0;   // per rank and sample: a one-off delay
  double hiccup_max_us = 50;  // uniform up to this
};

struct SimulatedRun {
  Table duration_us;
  Table launch_us;
};

bool is_faulty(const Fault& fault, int rank) {
  return std::find(fault.ranks.begin(), fault.ranks.end(), rank) != fault.ranks.end();
}

// One sample: each rank launches, its GPU arrives, and every rank ends `op_us` after the last
// arrival (a symmetric collective), each rank's duration measured from its own arrival.
void simulate_sample(int ranks, double op_us, const Fault& fault, const Jitter& jitter,
                     std::mt19937_64& rng, SimulatedRun& run) {
  std::exponential_distribution<double> launch_skew(1 / jitter.launch_mean_us);
  std::normal_distribution<double> arrival_noise(0, jitter.arrival_sd_us);
  std::normal_distribution<double> end_noise(0, jitter.end_sd_us);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> launch_us(ranks), arrival_us(ranks);
  for (int rank = 0; rank < ranks; ++rank) {
    const bool faulty = is_faulty(fault, rank);
    // A hiccup delays the launch thread or, as often, the GPU after an on-time launch.
    const double hiccup_us =
        unit(rng) < jitter.hiccup_chance ? unit(rng) * jitter.hiccup_max_us : 0;
    const bool host_hiccup = unit(rng) < 0.5;
    launch_us[rank] =
        launch_skew(rng) + (faulty ? fault.host_delay_us : 0) + (host_hiccup ? hiccup_us : 0);
    arrival_us[rank] = launch_us[rank] + std::fabs(arrival_noise(rng)) +
                       (faulty ? fault.gpu_delay_us : 0) + (host_hiccup ? 0 : hiccup_us);
  }
  const double last_launch_us = *std::max_element(launch_us.begin(), launch_us.end());
  if (fault.start_gate) {
    for (double& arrival : arrival_us) arrival = last_launch_us + std::fabs(arrival_noise(rng));
  }
  const double last_arrival_us = *std::max_element(arrival_us.begin(), arrival_us.end());
  for (int rank = 0; rank < ranks; ++rank) {
    const double end_us = last_arrival_us + op_us + std::fabs(end_noise(rng));
    run.duration_us[rank].push_back(end_us - arrival_us[rank]);
    run.launch_us[rank].push_back(launch_us[rank]);
  }
}

SimulatedRun simulate(int ranks, int samples, double op_us, const Fault& fault,
                      const Jitter& jitter, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  SimulatedRun run{Table(ranks), Table(ranks)};
  for (int sample = 0; sample < samples; ++sample) {
    simulate_sample(ranks, op_us, fault, jitter, rng, run);
  }
  return run;
}

ArrivalJudgement judge(const SimulatedRun& run, const std::vector<int>& host_of, double op_us,
                       std::vector<RankArrival>* arrivals = nullptr,
                       LatenessMean mean = LatenessMean::all_samples) {
  std::vector<RankArrival> summary =
      summarize_arrivals(run.duration_us, run.launch_us, host_of, mean);
  ArrivalJudgement judgement = judge_arrivals(summary, op_us);
  if (arrivals != nullptr) *arrivals = summary;
  return judgement;
}

TEST(Arrival, SummaryOfASmallTable) {
  // Sample 0: longest 10, shortest 8; sample 1: longest 12, shortest 10.
  const Table duration_us = {{10, 12}, {8, 12}, {10, 10}};
  const Table launch_us = {{0, 5}, {3, 0}, {1, 1}};
  const std::vector<RankArrival> ranks = summarize_arrivals(duration_us, launch_us, {0, 0, 1});
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_DOUBLE_EQ(ranks[0].gpu_lateness_us, 0);
  EXPECT_DOUBLE_EQ(ranks[1].gpu_lateness_us, 1);              // 2 then 0
  EXPECT_DOUBLE_EQ(ranks[2].gpu_lateness_us, 1);              // 0 then 2
  EXPECT_DOUBLE_EQ(ranks[1].gpu_lateness_spread_us, 1.4826);  // median 1, deviations 1 and 1
  EXPECT_DOUBLE_EQ(ranks[0].waited_us, 2);
  EXPECT_DOUBLE_EQ(ranks[1].waited_us, 1);
  EXPECT_DOUBLE_EQ(ranks[2].waited_us, 1);
  EXPECT_TRUE(ranks[0].host_known);
  EXPECT_DOUBLE_EQ(ranks[0].host_lateness_us, 2.5);  // 0 then 5 after rank 1
  EXPECT_DOUBLE_EQ(ranks[1].host_lateness_us, 1.5);  // 3 after rank 0, then 0
  EXPECT_FALSE(ranks[2].host_known);                 // alone on host 1
  EXPECT_EQ(ranks[2].host_lateness_us, 0);

  const std::vector<RankArrival> no_launches = summarize_arrivals(duration_us, {}, {});
  for (const RankArrival& rank : no_launches) EXPECT_FALSE(rank.host_known);
  EXPECT_TRUE(summarize_arrivals({}, {}, {}).empty());
}

// (a) One rank's GPU starts 200 us late in every sample of a 1000 us op, its launch on time.
TEST(Arrival, ALateGpuIsNamedAndItsPeersWait) {
  for (const int ranks : {4, 8}) {
    const SimulatedRun run = simulate(ranks, 50, 1000, {{2}, 0, 200}, {}, 7 + ranks);
    const ArrivalJudgement judgement = judge(run, std::vector<int>(ranks, 0), 1000);
    EXPECT_EQ(judgement.latest_rank, 2) << ranks << " ranks";
    for (int rank = 0; rank < ranks; ++rank) {
      const RankArrivalJudgement& verdict = judgement.ranks[rank];
      EXPECT_EQ(verdict.late, rank == 2) << rank;
      EXPECT_EQ(verdict.cause, rank == 2 ? LateCause::gpu : LateCause::none) << rank;
      EXPECT_EQ(verdict.waiting, rank != 2) << rank;
      EXPECT_EQ(verdict.margin_spreads > 0, rank == 2) << rank;
    }
  }
}

// (a) The same delay made by its host: it launches 200 us late.
TEST(Arrival, ALateHostIsTheCause) {
  for (const int ranks : {4, 8}) {
    const SimulatedRun run = simulate(ranks, 50, 1000, {{ranks - 1}, 200, 0}, {}, 11 + ranks);
    const ArrivalJudgement judgement = judge(run, std::vector<int>(ranks, 0), 1000);
    EXPECT_EQ(judgement.latest_rank, ranks - 1);
    for (int rank = 0; rank < ranks; ++rank) {
      const RankArrivalJudgement& verdict = judgement.ranks[rank];
      EXPECT_EQ(verdict.late, rank == ranks - 1) << rank;
      EXPECT_EQ(verdict.cause, rank == ranks - 1 ? LateCause::host : LateCause::none) << rank;
      EXPECT_EQ(verdict.waiting, rank != ranks - 1) << rank;
    }
  }
}

// Each rank's median time against the median of the others' medians: the rule this one replaced.
std::vector<double> old_rule_excess(const Table& duration_us) {
  std::vector<double> medians, excess;
  for (const std::vector<double>& samples : duration_us) medians.push_back(median(samples));
  for (std::size_t rank = 0; rank < medians.size(); ++rank) {
    std::vector<double> others = medians;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(rank));
    excess.push_back(medians[rank] / median(others) - 1);
  }
  return excess;
}

// (b) The ranks that waited take longer than the late ones; the old rule flagged them (more than
// 10% above the others' median), this one names the late ranks only.
TEST(Arrival, RanksThatWaitedAreNotNamed) {
  struct Scenario {
    int ranks;
    std::vector<int> late;
  };
  for (const Scenario& scenario :
       {Scenario{2, {1}}, Scenario{4, {2, 3}}, Scenario{8, {4, 5, 6, 7}}}) {
    const SimulatedRun run = simulate(scenario.ranks, 40, 1000, {scenario.late, 0, 200}, {}, 3);
    const std::vector<double> excess = old_rule_excess(run.duration_us);
    const ArrivalJudgement judgement = judge(run, std::vector<int>(scenario.ranks, 0), 1000);
    for (int rank = 0; rank < scenario.ranks; ++rank) {
      const bool late = is_faulty({scenario.late}, rank);
      EXPECT_EQ(excess[rank] > 0.10, !late) << "old rule, rank " << rank;
      EXPECT_EQ(judgement.ranks[rank].late, late) << scenario.ranks << " ranks, rank " << rank;
    }
  }
}

// (c) A start gate on the GPUs absorbs a host that launches 5 ms late: equal durations, and the
// host's lateness names the rank.
TEST(Arrival, AGatedLateHostIsNamedByItsLaunch) {
  Fault gated{{1}, 5000, 0};
  gated.start_gate = true;
  const SimulatedRun run = simulate(4, 30, 1000, gated, {}, 5);
  std::vector<RankArrival> arrivals;
  const ArrivalJudgement judgement = judge(run, {0, 0, 0, 0}, 1000, &arrivals);
  EXPECT_LT(arrivals[1].gpu_lateness_us, judgement.ranks[1].limit_us);
  EXPECT_GT(arrivals[1].host_lateness_us, judgement.ranks[1].host_limit_us);
  EXPECT_EQ(judgement.latest_rank, 1);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(judgement.ranks[rank].late, rank == 1) << rank;
    EXPECT_EQ(judgement.ranks[rank].cause, rank == 1 ? LateCause::host : LateCause::none);
    EXPECT_FALSE(judgement.ranks[rank].waiting) << rank;
  }
  EXPECT_GT(judgement.ranks[1].margin_spreads, 0);  // the host figure's margin
}

// A GPU that starts late in a gated round, while every host's launches jitter by tens of
// microseconds alike: its own host lateness matches its GPU lateness by chance, yet the host is
// not late (not beyond its limit), so the GPU is the cause.
TEST(Arrival, HostJitterLikeEveryonesDoesNotMakeTheHostTheCause) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> jitter_us(0, 200);
  Table duration_us(4), launch_us(4);
  for (int sample = 0; sample < 40; ++sample) {
    for (int rank = 0; rank < 4; ++rank) {
      duration_us[rank].push_back(rank == 3 ? 1000 : 1100);
      launch_us[rank].push_back(jitter_us(rng));
    }
  }
  const std::vector<RankArrival> arrivals =
      summarize_arrivals(duration_us, launch_us, {0, 0, 0, 0});
  ASSERT_GT(arrivals[3].host_lateness_us, 0.5 * arrivals[3].gpu_lateness_us);
  for (const ArrivalRule& rule : {ArrivalRule{}, [] {
                                    ArrivalRule sweep;
                                    sweep.host_floor_us = 1000;
                                    return sweep;
                                  }()}) {
    const ArrivalJudgement judgement = judge_arrivals(arrivals, 1000, rule);
    EXPECT_TRUE(judgement.ranks[3].late);
    EXPECT_EQ(judgement.ranks[3].cause, LateCause::gpu);
    for (int rank = 0; rank < 3; ++rank) EXPECT_FALSE(judgement.ranks[rank].late) << rank;
  }
}

// The host floor: a gated sweep's clean host jitter of up to a millisecond names nobody under
// host_floor_us 1000, and a host 5 ms late is still named.
TEST(Arrival, TheHostFloorKeepsEnqueueJitterUnnamed) {
  ArrivalRule sweep;
  sweep.host_floor_us = 1000;
  Table duration_us(2, std::vector<double>(30, 500)), launch_us(2, std::vector<double>(30, 0));
  for (double& launch : launch_us[1]) launch = 400;  // 400 us behind in every round
  const ArrivalJudgement jitter =
      judge_arrivals(summarize_arrivals(duration_us, launch_us, {0, 0}), 500, sweep);
  EXPECT_FALSE(jitter.ranks[1].late);
  EXPECT_TRUE(
      judge_arrivals(summarize_arrivals(duration_us, launch_us, {0, 0}), 500).ranks[1].late);
  for (double& launch : launch_us[1]) launch = 5000;
  const ArrivalJudgement starved =
      judge_arrivals(summarize_arrivals(duration_us, launch_us, {0, 0}), 500, sweep);
  EXPECT_TRUE(starved.ranks[1].late);
  EXPECT_EQ(starved.ranks[1].cause, LateCause::host);
}

// The hosts of a simulated machine: one, two halves, or one per rank.
std::vector<int> hosts_of(int ranks, int layout) {
  std::vector<int> hosts(ranks, 0);
  for (int rank = 0; rank < ranks; ++rank) {
    hosts[rank] = layout == 0 ? 0 : layout == 1 ? rank * 2 / ranks : rank;
  }
  return hosts;
}

// (d) Clean runs of 4 and 8 ranks, 20 to 200 samples, ops of 10 us to 10 ms, with launch skew,
// arrival jitter of a few us and one-off hiccups of up to 50 us on random ranks: nobody is late.
TEST(Arrival, CleanRunsNameNobody) {
  std::mt19937_64 rng(2024);
  std::uniform_int_distribution<int> sample_count(20, 200), layout(0, 2);
  std::uniform_real_distribution<double> log_op_us(1, 4), arrival_sd_us(1, 5);
  double highest_margin = -1e9;
  for (int seed = 0; seed < 2000; ++seed) {
    const int ranks = seed % 2 ? 8 : 4;
    const double op_us = std::pow(10, log_op_us(rng));
    Jitter jitter;
    jitter.arrival_sd_us = arrival_sd_us(rng);
    jitter.hiccup_chance = 0.02;
    const SimulatedRun run = simulate(ranks, sample_count(rng), op_us, {}, jitter, 1000 + seed);
    const ArrivalJudgement judgement = judge(run, hosts_of(ranks, layout(rng)), op_us);
    EXPECT_EQ(judgement.latest_rank, -1) << "seed " << seed;
    for (int rank = 0; rank < ranks; ++rank) {
      ASSERT_FALSE(judgement.ranks[rank].late) << "seed " << seed << ", rank " << rank;
      highest_margin = std::max(highest_margin, judgement.ranks[rank].margin_spreads);
    }
  }
  EXPECT_LT(highest_margin, 0);
}

// Measured on a 4xH100 VM, one process: about one sample in 30 of a healthy rank's thread is
// delayed by the OS by milliseconds (its mean lateness 166 us over 30 samples of an 80 us op).
// With the latest tenth set aside (the diagnose arrival probe), one such sample, on any rank, in
// any of many clean runs, names nobody; with every sample counted it would.
TEST(Arrival, OneSampleTheOsDelayedNamesNobody) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> delay_us(1000, 6000);
  for (int seed = 0; seed < 200; ++seed) {
    const int ranks = seed % 2 ? 8 : 4, samples = 30, delayed_sample = seed % samples;
    const int delayed_rank = seed % ranks;
    std::mt19937_64 run_rng(500 + seed);
    SimulatedRun run{Table(ranks), Table(ranks)};
    for (int sample = 0; sample < samples; ++sample) {
      Fault fault;
      if (sample == delayed_sample) fault = {{delayed_rank}, delay_us(rng), 0};
      simulate_sample(ranks, 80, fault, {}, run_rng, run);
    }
    std::vector<RankArrival> arrivals;
    const ArrivalJudgement judgement =
        judge(run, std::vector<int>(ranks, 0), 80, &arrivals, LatenessMean::latest_tenth_aside);
    EXPECT_EQ(judgement.latest_rank, -1) << "seed " << seed;
    EXPECT_EQ(judge(run, std::vector<int>(ranks, 0), 80).latest_rank, delayed_rank)
        << "seed " << seed;
    for (int rank = 0; rank < ranks; ++rank) {
      EXPECT_FALSE(judgement.ranks[rank].late) << "seed " << seed << ", rank " << rank;
    }
    // The delayed sample stays in the evidence.
    EXPECT_GT(*std::max_element(arrivals[delayed_rank].host_lateness_samples_us.begin(),
                                arrivals[delayed_rank].host_lateness_samples_us.end()),
              1000);
  }
}

// A starved host is late in many samples, not one: late by 1-4 ms in a third of them, it is named,
// with its host as the cause, whichever way the samples are averaged.
TEST(Arrival, AHostLateInAThirdOfItsSamplesIsNamed) {
  std::mt19937_64 rng(37);
  std::uniform_real_distribution<double> delay_us(1000, 4000);
  for (const int ranks : {2, 4, 8}) {
    std::mt19937_64 run_rng(700 + ranks);
    SimulatedRun run{Table(ranks), Table(ranks)};
    for (int sample = 0; sample < 30; ++sample) {
      Fault fault;
      if (sample % 3 == 0) fault = {{ranks / 2}, delay_us(rng), 0};
      simulate_sample(ranks, 80, fault, {}, run_rng, run);
    }
    for (const LatenessMean mean : {LatenessMean::all_samples, LatenessMean::latest_tenth_aside}) {
      const ArrivalJudgement judgement = judge(run, std::vector<int>(ranks, 0), 80, nullptr, mean);
      EXPECT_EQ(judgement.latest_rank, ranks / 2) << ranks << " ranks";
      EXPECT_EQ(judgement.ranks[ranks / 2].cause, LateCause::host) << ranks << " ranks";
    }
  }
}

TEST(Arrival, TrimmedLatenessSetsTheLatestTenthAside) {
  EXPECT_EQ(trimmed_lateness_mean({}), 0);
  EXPECT_DOUBLE_EQ(trimmed_lateness_mean({4, 2}), 3);  // below 10 samples: the mean
  std::vector<double> thirty(30, 1.0);
  thirty[7] = 5000;
  thirty[20] = 4000;
  thirty[29] = 3000;
  EXPECT_DOUBLE_EQ(trimmed_lateness_mean(thirty), 1);  // three of 30 set aside
  thirty[3] = 271;
  EXPECT_DOUBLE_EQ(trimmed_lateness_mean(thirty), (26 + 271) / 27.0);
}

// (e) Ranks alone on their hosts have no clock to compare launches with: the cause is unknown.
TEST(Arrival, ARankAloneOnItsHostHasAnUnknownCause) {
  const SimulatedRun pair = simulate(2, 40, 1000, {{1}, 200, 0}, {}, 9);
  std::vector<RankArrival> arrivals;
  const ArrivalJudgement two = judge(pair, {0, 1}, 1000, &arrivals);
  EXPECT_FALSE(arrivals[0].host_known);
  EXPECT_FALSE(arrivals[1].host_known);
  EXPECT_FALSE(two.ranks[0].late);
  EXPECT_TRUE(two.ranks[1].late);
  EXPECT_EQ(two.ranks[1].cause, LateCause::unknown);
  EXPECT_EQ(two.latest_rank, 1);

  const SimulatedRun four = simulate(4, 40, 1000, {{3}, 200, 0}, {}, 10);
  const ArrivalJudgement shared = judge(four, {0, 0, 1, 2}, 1000, &arrivals);
  EXPECT_TRUE(arrivals[0].host_known);
  EXPECT_FALSE(arrivals[3].host_known);
  EXPECT_EQ(shared.ranks[3].cause, LateCause::unknown);
  EXPECT_EQ(shared.ranks[3].host_limit_us, 0);
}

// (f) Tables of the wrong shape.
TEST(Arrival, RaggedTablesThrow) {
  EXPECT_THROW(summarize_arrivals({{1, 2}, {1}}, {}, {}), std::invalid_argument);
  EXPECT_THROW(summarize_arrivals({{}, {}}, {}, {}), std::invalid_argument);
  EXPECT_THROW(summarize_arrivals({{1, 2}, {1, 2}}, {{0, 0}}, {}), std::invalid_argument);
  EXPECT_THROW(summarize_arrivals({{1, 2}, {1, 2}}, {{0, 0}, {0}}, {}), std::invalid_argument);
  EXPECT_THROW(summarize_arrivals({{1, 2}, {1, 2}}, {}, {0, 0, 1}), std::invalid_argument);
}

TEST(Arrival, TheLimitHonoursTheFloorAndTheOpShare) {
  const Table equal_us = {{100, 100}, {100, 100}, {100, 100}};
  const std::vector<RankArrival> ranks = summarize_arrivals(equal_us, {}, {});
  EXPECT_DOUBLE_EQ(judge_arrivals(ranks, 100).ranks[0].limit_us, 20);     // the floor
  EXPECT_DOUBLE_EQ(judge_arrivals(ranks, 10000).ranks[0].limit_us, 500);  // 5% of the op
  ArrivalRule rule;
  rule.floor_us = 0;
  rule.op_share = 0;
  // No spread below the events' resolution: 0 + 5 x 0.5 us.
  EXPECT_DOUBLE_EQ(judge_arrivals(ranks, 100, rule).ranks[0].limit_us, 2.5);
  EXPECT_FALSE(judge_arrivals(summarize_arrivals({{5}}, {}, {}), 5).ranks[0].late);
}

TEST(Arrival, CauseNames) {
  EXPECT_STREQ(late_cause_name(LateCause::none), "on_time");
  EXPECT_STREQ(late_cause_name(LateCause::host), "host");
  EXPECT_STREQ(late_cause_name(LateCause::gpu), "gpu");
  EXPECT_STREQ(late_cause_name(LateCause::unknown), "unknown");
}

TEST(Arrival, OnlySymmetricCollectivesFinishTogether) {
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "alltoallv"}) {
    EXPECT_TRUE(finishes_together(op)) << op;
  }
  for (const char* op : {"broadcast", "reduce", "gather", "scatter", "sendrecv", "", "allreduce"}) {
    EXPECT_FALSE(finishes_together(op)) << op;
  }
}

}  // namespace
}  // namespace collbench::stats
