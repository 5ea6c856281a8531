// The diagnosis document: what is written reads back the same, a test harness's "truth" is let
// be, and a broken document is refused with one line naming the field. Also the console
// summary's sections.
#include "report/diagnosis_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "report/console_summary.hpp"
#include "simulated_machine.hpp"

namespace collbench::diagnose {
namespace {

using nlohmann::json;
using namespace simulated;

// A diagnosis with something in every section: readings NVML gave and did not, a missing rank,
// a slow GPU with other processes, a merged link endpoint, a figure cleared on recheck, and the
// rechecks themselves.
json sample_document() {
  Measurements truth = healthy_machine(1, 8, kRealisticNoise, 4);
  gpu_of(truth, 1).power_w = 512.5;
  gpu_of(truth, 1).other_processes = 2;
  gpu_of(truth, 2).nvlink_replay = 7;
  gpu_of(truth, 2).clock_event_reasons.reset();
  scale_copy(truth, 1, 0.5);
  load_link(truth, 0, 3);
  truth.missing.push_back({7, "did not start the local copy within 30 s"});
  truth.link_peak_gbps = 477;
  Measurements measured = truth;
  scale_latency(measured, 4, 5, 4);
  measured.rechecks = recheck(truth, to_recheck(measured), {}, 1);
  return diagnosis_json(measured, judge(measured), "slow_gpu:1", 12.5);
}

std::string refusal(const json& document) {
  try {
    validate_diagnosis_json(document);
  } catch (const DiagnosisFormatError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(DiagnosisJson, WritesTheFormatAndEverySection) {
  const json document = sample_document();
  EXPECT_EQ(document["format"], "collbench-diagnosis");
  EXPECT_EQ(document["version"], 2);
  EXPECT_EQ(document["injected"], "slow_gpu:1");
  EXPECT_EQ(document["wall_s"], 12.5);
  EXPECT_EQ(document["ranks"].size(), 8u);
  EXPECT_EQ(document["gpus"].size(), 8u);
  EXPECT_EQ(document["pairs"].size(), 56u);
  EXPECT_EQ(document["groups"].size(), 4u);
  EXPECT_EQ(document["arrivals"].size(), 8u);
  EXPECT_EQ(document["arrivals"][0]["host_known"], true);
  EXPECT_EQ(document["arrivals"][0]["gpu_lateness_spread_us"], kLatenessSpreadUs);
  EXPECT_EQ(document["expectations"]["link_peak_gbps"], 477);
  EXPECT_EQ(document["expectations"]["within_host"]["latency_us"]["figures"], 56);
  EXPECT_EQ(document["thresholds"]["spread_factor"], 5);
  EXPECT_EQ(document["thresholds"]["latency_spread_floor"], 0.05);
  EXPECT_TRUE(document["gpus"][0]["power_w"].is_null());
  EXPECT_EQ(document["gpus"][1]["power_w"], 512.5);
  EXPECT_EQ(document["gpus"][1]["other_processes"], 2);
  EXPECT_EQ(document["gpus"][1]["copy_spread"], kCopySpread);
  EXPECT_TRUE(document["gpus"][1]["compute_tflops"].is_number());
  EXPECT_NEAR(document["gpus"][1]["compute_tflops"].get<double>(), kComputeTflops,
              kComputeTflops * 0.031);
  EXPECT_EQ(document["gpus"][1]["compute_spread"], kComputeSpread);
  EXPECT_EQ(document["expectations"]["compute_tflops"]["figures"], 8);
  EXPECT_EQ(document["thresholds"]["compute_spread_floor"], 0.02);
  EXPECT_TRUE(document["rechecks"]["gpus"][0]["compute_tflops"].is_number());
  EXPECT_EQ(document["pairs"][0]["latency_spread"], kLatencySpread);
  EXPECT_EQ(document["rechecks"]["gpus"].size(), 1u);
  EXPECT_EQ(document["rechecks"]["gpus"][0]["rank"], 1);
  EXPECT_TRUE(document["rechecks"]["arrivals"].empty());
  ASSERT_EQ(document["suspects"].size(), 3u);
  EXPECT_EQ(document["suspects"][0]["kind"], "missing_rank");
  EXPECT_EQ(document["suspects"][1]["kind"], "slow_gpu");
  EXPECT_TRUE(document["suspects"][1]["peer"].is_null());
  EXPECT_EQ(document["suspects"][1]["confirmed"], true);
  const json& evidence = document["suspects"][1]["evidence"];
  EXPECT_NE(std::find(evidence.begin(), evidence.end(), "2 other processes on this GPU"),
            evidence.end())
      << evidence.dump();
  EXPECT_EQ(document["suspects"][2]["kind"], "link_endpoint");
  EXPECT_EQ(document["suspects"][2]["direction"], "0->3");
  EXPECT_EQ(document["suspects"][2]["peer"], 3);
  ASSERT_EQ(document["cleared"].size(), 1u);
  EXPECT_EQ(document["cleared"][0]["figure_kind"], "pair_latency");
  EXPECT_EQ(document["cleared"][0]["ranks"], json({4, 5}));
  EXPECT_TRUE(document["margins"]["copy"]["spreads"].is_number());
  EXPECT_TRUE(document["margins"]["compute"]["spreads"].is_number());
  EXPECT_TRUE(document["margins"]["collective"]["spreads"].is_null());
  EXPECT_EQ(document["margins"]["arrival"]["worst"].get<std::string>().rfind("rank ", 0), 0u);
}

TEST(DiagnosisJson, ReadsBackWhatItWrote) {
  const json document = sample_document();
  const Diagnosis diagnosis = read_diagnosis_json(json::parse(document.dump()));
  EXPECT_EQ(diagnosis.injected, "slow_gpu:1");
  EXPECT_EQ(diagnosis.wall_s, 12.5);
  EXPECT_EQ(diagnosis.measurements.link_peak_gbps, 477);
  EXPECT_EQ(diagnosis.measurements.gpus[2].nvlink_replay, 7u);
  EXPECT_EQ(diagnosis.measurements.gpus[1].other_processes, 2u);
  EXPECT_FALSE(diagnosis.measurements.gpus[2].clock_event_reasons);
  EXPECT_TRUE(diagnosis.measurements.arrivals[3].host_known);
  EXPECT_EQ(diagnosis.measurements.rechecks.gpus.size(), 1u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(diagnosis.measurements.gpus[i].compute_tflops,
              document["gpus"][i]["compute_tflops"].get<double>());
    EXPECT_EQ(diagnosis.measurements.gpus[i].compute_spread, kComputeSpread);
  }
  EXPECT_EQ(diagnosis.measurements.rechecks.gpus[0].compute_tflops,
            document["rechecks"]["gpus"][0]["compute_tflops"].get<double>());
  EXPECT_EQ(diagnosis.verdict.expectations.compute_tflops.figures, 8);
  EXPECT_EQ(diagnosis.verdict.thresholds.compute_spread_floor, 0.02);
  ASSERT_TRUE(diagnosis.verdict.margins.compute);
  EXPECT_EQ(diagnosis.verdict.margins.compute->worst,
            document["margins"]["compute"]["worst"].get<std::string>());
  EXPECT_EQ(diagnosis.verdict.suspects[2].peer, 3);
  EXPECT_EQ(diagnosis.verdict.suspects[2].kind, SuspectKind::link_endpoint);
  EXPECT_EQ(diagnosis.verdict.suspects[2].direction, "0->3");
  EXPECT_EQ(diagnosis.verdict.cleared.size(), 1u);
  ASSERT_TRUE(diagnosis.verdict.margins.pair_latency);
  EXPECT_TRUE(diagnosis.verdict.margins.pair_latency->spreads);
  EXPECT_FALSE(diagnosis.verdict.margins.collective->spreads);
  EXPECT_EQ(diagnosis_json(diagnosis.measurements, diagnosis.verdict, diagnosis.injected,
                           diagnosis.wall_s),
            document);
  // What was read judges the same again: every figure the verdict needs is in the document.
  EXPECT_EQ(diagnosis_json(diagnosis.measurements, judge(diagnosis.measurements),
                           diagnosis.injected, diagnosis.wall_s),
            document);
}

TEST(DiagnosisJson, AcceptsATruthObjectAndLeavesItAlone) {
  json document = sample_document();
  document["truth"] = {{"fault", "link_load"}, {"src", 0}, {"dst", 3}};
  EXPECT_EQ(refusal(document), "accepted");
  document["truth"] = json::object();
  EXPECT_EQ(refusal(document), "accepted");
  document["truth"] = 3;
  EXPECT_EQ(refusal(document), "'truth' is 3, not an object");
}

// One way to break the sample document: the field at `pointer` replaced, or removed when there
// is no replacement, and the one line the reader must answer with.
struct Breakage {
  const char* pointer;
  std::optional<json> replacement;
  const char* refusal;
};

const Breakage kBreakages[] = {
    {"/suspects", std::nullopt, "no 'suspects' field"},
    {"/suspects", "none", "'suspects' is \"none\", not an array"},
    {"/suspects/1/ratio", "0.5", "'suspects[1].ratio' is \"0.5\", not a number"},
    {"/suspects/2/direction", std::nullopt, "no 'suspects[2].direction' field"},
    {"/suspects/2/confirmed", 1, "'suspects[2].confirmed' is 1, not true or false"},
    {"/suspects/0/kind", "fast_gpu",
     "'suspects[0].kind' is \"fast_gpu\", not one of missing_rank, slow_gpu, starved_host, "
     "slow_node, link_endpoint, slow_link, straggler"},
    {"/suspects/2/evidence/0", 3, "'suspects[2].evidence[0]' is 3, not a string"},
    {"/gpus/3/ecc_uncorrected", -1, "'gpus[3].ecc_uncorrected' is -1, not a count"},
    {"/gpus/1/other_processes", 4294967296ULL,
     "'gpus[1].other_processes' is 4294967296, not a count of processes"},
    {"/arrivals/2/host_known", "yes", "'arrivals[2].host_known' is \"yes\", not true or false"},
    {"/groups/0/ranks/1", 1.5, "'groups[0].ranks[1]' is 1.5, not an integer"},
    {"/expectations/within_host/latency_us/log_spread", std::nullopt,
     "no 'expectations.within_host.latency_us.log_spread' field"},
    {"/rechecks/pairs", std::nullopt, "no 'rechecks.pairs' field"},
    {"/rechecks/gpus/0/copy_gbps", nullptr, "'rechecks.gpus[0].copy_gbps' is null, not a number"},
    {"/gpus/0/compute_tflops", std::nullopt, "no 'gpus[0].compute_tflops' field"},
    {"/rechecks/gpus/0/compute_spread", "x",
     "'rechecks.gpus[0].compute_spread' is \"x\", not a number"},
    {"/expectations/compute_tflops", std::nullopt, "no 'expectations.compute_tflops' field"},
    {"/thresholds/compute_spread_floor", "x",
     "'thresholds.compute_spread_floor' is \"x\", not a number"},
    {"/margins/compute", 3, "'margins.compute' is 3, not an object"},
    {"/cleared/0/recheck", std::nullopt, "no 'cleared[0].recheck' field"},
    {"/thresholds/spread_factor", nullptr, "'thresholds.spread_factor' is null, not a number"},
    {"/margins", json::array(), "'margins' is [], not an object"},
    {"/margins/copy", 3, "'margins.copy' is 3, not an object"},
    {"/margins/pair_latency/spreads", "2", "'margins.pair_latency.spreads' is \"2\", not a number"},
    {"/ranks/0/rank", 4294967296LL, "'ranks[0].rank' is 4294967296, not an integer"},
    {"/format", "collbench-samples",
     "'format' is \"collbench-samples\", not \"collbench-diagnosis\""},
    {"/version", 1, "'version' is 1, not 2 (the version this reader reads)"},
};

TEST(DiagnosisJson, RefusesABrokenDocumentNamingTheField) {
  const json document = sample_document();
  EXPECT_EQ(refusal(document), "accepted");
  for (const Breakage& breakage : kBreakages) {
    json broken = document;
    const json::json_pointer pointer(breakage.pointer);
    if (breakage.replacement) {
      broken.at(pointer) = *breakage.replacement;
    } else {
      broken.at(pointer.parent_pointer()).erase(pointer.back());
    }
    EXPECT_EQ(refusal(broken), breakage.refusal) << breakage.pointer;
  }
  EXPECT_EQ(refusal(json::array()), "'the diagnosis' is [], not an object");
}

// A threshold added after a diagnosis was saved reads as its default, so --from judges it.
TEST(DiagnosisJson, AThresholdTheFileLacksReadsAsItsDefault) {
  json document = sample_document();
  document["thresholds"].erase("link_peak_share");
  document["thresholds"]["slow_ratio"] = 0.7;
  const Diagnosis diagnosis = read_diagnosis_json(document);
  EXPECT_EQ(diagnosis.verdict.thresholds.link_peak_share, Thresholds{}.link_peak_share);
  EXPECT_EQ(diagnosis.verdict.thresholds.slow_ratio, 0.7);
}

// Every arrival iteration's lateness is kept and read back; a file saved before they were kept
// (no sample fields) reads with none.
TEST(DiagnosisJson, ArrivalSamplesRoundTripAndMayBeAbsent) {
  json document = sample_document();
  document["arrivals"][2]["gpu_lateness_samples_us"] = {0.5, 3.25, 4100.0};
  document["arrivals"][2]["host_lateness_samples_us"] = {0.0, 1.5, 4099.5};
  const Diagnosis diagnosis = read_diagnosis_json(json::parse(document.dump()));
  EXPECT_EQ(diagnosis.measurements.arrivals[2].gpu_lateness_samples_us,
            (std::vector<double>{0.5, 3.25, 4100.0}));
  EXPECT_EQ(diagnosis.measurements.arrivals[2].host_lateness_samples_us,
            (std::vector<double>{0.0, 1.5, 4099.5}));
  for (json& arrival : document["arrivals"]) {
    arrival.erase("gpu_lateness_samples_us");
    arrival.erase("host_lateness_samples_us");
  }
  const Diagnosis old = read_diagnosis_json(document);
  EXPECT_TRUE(old.measurements.arrivals[2].gpu_lateness_samples_us.empty());
  document["arrivals"][0]["gpu_lateness_samples_us"] = {1.0, "late"};
  EXPECT_EQ(refusal(document),
            "'arrivals[0].gpu_lateness_samples_us[1]' is \"late\", not a number");
}

TEST(ConsoleSummary, ShowsEverySectionAndACleanVerdictWithItsMargins) {
  const Measurements measurements = healthy_machine(1, 2);
  const std::string summary = console_summary(measurements, judge(measurements));
  EXPECT_EQ(
      summary,
      "GPUs\n"
      "  rank  host             GPU            copy GB/s  spread    TFLOP/s  spread       SM MHz  "
      "clock events  other processes\n"
      "     0  node-a           0000:10:00.0        1490    0.5%       60.0    0.5%    1980/1980  "
      "0x0           0\n"
      "     1  node-a           0000:11:00.0        1490    0.5%       60.0    0.5%    1980/1980  "
      "0x0           0\n"
      "\n"
      "Pairs: send/recv GB/s, rows send to columns\n"
      "           0     1\n"
      "     0     -   370\n"
      "     1   370     -\n"
      "\n"
      "Pairs: latency us (half a round trip), rows send to columns\n"
      "           0     1\n"
      "     0     -   8.0\n"
      "     1   8.0     -\n"
      "\n"
      "Collectives\n"
      "  all_reduce      ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "  all_gather      ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "  reduce_scatter  ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "  alltoall        ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "\n"
      "Arrivals: us late, over all_reduce launched at the same scheduled moments\n"
      "  rank   GPU late     spread  host late     waited\n"
      "     0        5.0        2.0        3.0        5.0\n"
      "     1        5.0        2.0        3.0        5.0\n"
      "\n"
      "Verdict: no suspect; margins:\n"
      "  copy: worst rank 0 1.00× its reference, 0.0 spreads (flagged beyond 5 spreads and "
      "0.85×)\n"
      "  compute: worst rank 0 1.00× its reference, 0.0 spreads (flagged beyond 5 spreads and "
      "0.85×)\n"
      "  pair bandwidth: worst 0->1 1.00× its reference, 0.0 spreads (flagged beyond 5 spreads "
      "and 0.85×)\n"
      "  pair latency: worst 0->1 1.00× its reference, 0.0 spreads (flagged beyond 5 spreads and "
      "1.50×)\n"
      "  collective: worst all_reduce on ranks 0,1 1.00× its ring bound (slow below 0.80×)\n"
      "  arrival: worst rank 0 5 us late, 0.14× its limit of 35 us, -15.0 spreads from it (late "
      "beyond it)\n");
}

TEST(ConsoleSummary, DashesAComputeNotMeasuredAndLeavesOutItsMargin) {
  Measurements measurements = healthy_machine(1, 2);
  for (GpuFigures& gpu : measurements.gpus) gpu.compute_tflops = 0;
  const std::string summary = console_summary(measurements, judge(measurements));
  EXPECT_NE(
      summary.find("     0  node-a           0000:10:00.0        1490    0.5%          -       "
                   "-    1980/1980  0x0           0\n"),
      std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("  compute: "), std::string::npos) << summary;
}

TEST(ConsoleSummary, GivesTheClearedFiguresThenOneLinePerSuspect) {
  Measurements truth = healthy_machine(1, 4);
  scale_copy(truth, 2, 0.5);
  scale_pair(truth, 0, 1, 0.5);
  Measurements measured = truth;
  scale_latency(measured, 3, 2, 4);
  measured.rechecks = recheck(truth, to_recheck(measured), {}, 1);
  const std::string summary = console_summary(measured, judge(measured));
  const std::string verdict = summary.substr(summary.find("Cleared"));
  EXPECT_EQ(verdict,
            "Cleared on recheck (flagged once, fine when measured again alone):\n"
            "  3->2 latency 32.0 us against 8.0 (17.3 spreads) cleared on recheck: 8.0 us\n"
            "Verdict: 2 suspects, the likeliest root cause first\n"
            "  slow_gpu      rank 2 (node-a 0000:12:00.0): copy 745 GB/s against 1490 (0.50×, "
            "34.7 spreads; recheck 745)\n"
            "  slow_link     ranks 0 and 1 (node-a 0000:10:00.0): 0->1 185 GB/s against 370 "
            "(0.50×, 34.7 spreads; recheck 185)\n");
}

}  // namespace
}  // namespace collbench::diagnose
