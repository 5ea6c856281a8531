// The diagnosis document: what is written reads back the same, and a broken document is refused
// with one line naming the field. Also the console summary's sections.
#include "diagnosis_json.hpp"

#include <gtest/gtest.h>

#include "console_summary.hpp"
#include "simulated_machine.hpp"

namespace collbench::diagnose {
namespace {

using nlohmann::json;
using namespace simulated;

// A diagnosis with something in every section: readings NVML gave and did not, a missing rank,
// a slow GPU and a slow link.
json sample_document() {
  Measurements measurements = healthy_machine(1, 4, 0.03);
  gpu_of(measurements, 1).power_w = 512.5;
  gpu_of(measurements, 2).nvlink_replay = 7;
  gpu_of(measurements, 2).clock_event_reasons.reset();
  scale_copy(measurements, 1, 0.5);
  scale_pair(measurements, 2, 3, 0.4);
  measurements.missing.push_back({0, "did not start the local copy within 30 s"});
  measurements.link_peak_gbps = 477;
  return diagnosis_json(measurements, judge(measurements), "slow_gpu:1", 12.5);
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
  EXPECT_EQ(document["version"], 1);
  EXPECT_EQ(document["injected"], "slow_gpu:1");
  EXPECT_EQ(document["wall_s"], 12.5);
  EXPECT_EQ(document["ranks"].size(), 4u);
  EXPECT_EQ(document["gpus"].size(), 4u);
  EXPECT_EQ(document["pairs"].size(), 12u);
  EXPECT_EQ(document["groups"].size(), 4u);
  EXPECT_EQ(document["arrivals"].size(), 4u);
  EXPECT_EQ(document["expectations"]["link_peak_gbps"], 477);
  EXPECT_TRUE(document["gpus"][0]["power_w"].is_null());
  EXPECT_EQ(document["gpus"][1]["power_w"], 512.5);
  ASSERT_EQ(document["suspects"].size(), 3u);
  EXPECT_EQ(document["suspects"][0]["kind"], "missing_rank");
  EXPECT_EQ(document["suspects"][1]["kind"], "slow_gpu");
  EXPECT_TRUE(document["suspects"][1]["peer"].is_null());
  EXPECT_EQ(document["suspects"][2]["kind"], "slow_link");
  EXPECT_EQ(document["suspects"][2]["peer"], 3);
  EXPECT_EQ(document["suspects"][2]["evidence"][1],
            "rank 2 NVLink errors: 7 replay, 0 recovery, 0 CRC");
  EXPECT_TRUE(document["margins"]["copy"].is_number());
}

TEST(DiagnosisJson, ReadsBackWhatItWrote) {
  const json document = sample_document();
  const Diagnosis diagnosis = read_diagnosis_json(json::parse(document.dump()));
  EXPECT_EQ(diagnosis.injected, "slow_gpu:1");
  EXPECT_EQ(diagnosis.wall_s, 12.5);
  EXPECT_EQ(diagnosis.measurements.link_peak_gbps, 477);
  EXPECT_EQ(diagnosis.measurements.gpus[2].nvlink_replay, 7u);
  EXPECT_FALSE(diagnosis.measurements.gpus[2].clock_event_reasons);
  EXPECT_EQ(diagnosis.verdict.suspects[2].peer, 3);
  EXPECT_EQ(diagnosis.verdict.suspects[2].kind, SuspectKind::slow_link);
  EXPECT_EQ(diagnosis_json(diagnosis.measurements, diagnosis.verdict, diagnosis.injected,
                           diagnosis.wall_s),
            document);
}

TEST(DiagnosisJson, RefusesABrokenDocumentNamingTheField) {
  json document = sample_document();
  EXPECT_EQ(refusal(document), "accepted");

  json broken = document;
  broken.erase("suspects");
  EXPECT_EQ(refusal(broken), "no 'suspects' field");

  broken = document;
  broken["suspects"] = "none";
  EXPECT_EQ(refusal(broken), "'suspects' is \"none\", not an array");

  broken = document;
  broken["suspects"][1]["ratio"] = "0.5";
  EXPECT_EQ(refusal(broken), "'suspects[1].ratio' is \"0.5\", not a number");

  broken = document;
  broken["suspects"][2].erase("evidence");
  EXPECT_EQ(refusal(broken), "no 'suspects[2].evidence' field");

  broken = document;
  broken["suspects"][0]["kind"] = "fast_gpu";
  EXPECT_EQ(refusal(broken),
            "'suspects[0].kind' is \"fast_gpu\", not one of missing_rank, slow_gpu, slow_node, "
            "slow_link, straggler");

  broken = document;
  broken["suspects"][2]["evidence"][0] = 3;
  EXPECT_EQ(refusal(broken), "'suspects[2].evidence[0]' is 3, not a string");

  broken = document;
  broken["gpus"][3]["ecc_uncorrected"] = -1;
  EXPECT_EQ(refusal(broken), "'gpus[3].ecc_uncorrected' is -1, not a count");

  broken = document;
  broken["groups"][0]["ranks"][1] = 1.5;
  EXPECT_EQ(refusal(broken), "'groups[0].ranks[1]' is 1.5, not an integer");

  broken = document;
  broken["expectations"]["within_host"].erase("latency_us");
  EXPECT_EQ(refusal(broken), "no 'expectations.within_host.latency_us' field");

  broken = document;
  broken["margins"] = json::array();
  EXPECT_EQ(refusal(broken), "'margins' is [], not an object");

  broken = document;
  broken["ranks"][0]["rank"] = 4294967296;
  EXPECT_EQ(refusal(broken), "'ranks[0].rank' is 4294967296, not an integer");

  broken = document;
  broken["format"] = "collbench-samples";
  EXPECT_EQ(refusal(broken), "'format' is \"collbench-samples\", not \"collbench-diagnosis\"");

  broken = document;
  broken["version"] = 2;
  EXPECT_EQ(refusal(broken), "'version' is 2, not 1 (the version this reader reads)");

  EXPECT_EQ(refusal(json::array()), "'the diagnosis' is [], not an object");
}

TEST(ConsoleSummary, ShowsTheGpusPairsCollectivesAndACleanVerdict) {
  const Measurements measurements = healthy_machine(1, 2);
  const std::string summary = console_summary(measurements, judge(measurements));
  EXPECT_EQ(
      summary,
      "GPUs\n"
      "  rank  host             GPU            copy GB/s       SM MHz  clock events\n"
      "     0  node-a           0000:10:00.0        1490    1980/1980  0x0\n"
      "     1  node-a           0000:11:00.0        1490    1980/1980  0x0\n"
      "\n"
      "Pairs: send/recv GB/s, rows send to columns\n"
      "           0     1\n"
      "     0     -   370\n"
      "     1   370     -\n"
      "\n"
      "Collectives\n"
      "  all_reduce      ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "  all_gather      ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "  reduce_scatter  ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "  alltoall        ranks 0,1                      busbw    370 GB/s  expected    370  1.00×\n"
      "\n"
      "Verdict: no suspect (margins: copy 1.00× (slow below 0.80×), pair bandwidth 1.00× "
      "(slow below 0.80×), pair latency 1.00× (slow above 1.50×), collective 1.00× (slow "
      "below 0.80×), lateness 0.03× (of the limit))\n");
}

TEST(ConsoleSummary, GivesOneLinePerSuspect) {
  Measurements measurements = healthy_machine(1, 4);
  scale_copy(measurements, 2, 0.5);
  scale_pair(measurements, 0, 1, 0.5);
  const std::string summary = console_summary(measurements, judge(measurements));
  const std::string verdict = summary.substr(summary.find("Verdict:"));
  EXPECT_EQ(verdict,
            "Verdict: 2 suspects\n"
            "  slow_gpu     rank 2 (node-a 0000:12:00.0): copy 745 GB/s against the best GPU's "
            "1490 (0.50×)\n"
            "  slow_link    ranks 0 and 1 (node-a 0000:10:00.0): 0->1 185 GB/s against the best "
            "pair's 370 (0.50×)\n");
}

}  // namespace
}  // namespace collbench::diagnose
