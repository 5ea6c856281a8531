// The ground truth each fault writes: fault, ranks (GPU index == rank), GPUs and direction.
#include "truth.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace collbench::contend {
namespace {

TEST(ContendTruth, SmLoadNamesItsGpuAsTheRank) {
  ContendOptions options;
  options.fault = Fault::sm_load;
  options.sm.gpu = 2;
  Truth truth = truth_for(options);
  truth.detail = "bf16 GEMM loop on GPU 2";
  const nlohmann::json json = truth_json(truth);
  EXPECT_EQ(json, nlohmann::json::parse(R"({"truth": {"fault": "sm_load", "ranks": [2],
      "gpus": [2], "direction": null, "detail": "bf16 GEMM loop on GPU 2"}})"));
}

TEST(ContendTruth, LinkLoadNamesBothEndsAndTheDirection) {
  ContendOptions options;
  options.fault = Fault::link_load;
  options.link = {1, 3, false};
  Truth one = truth_for(options);
  EXPECT_EQ(one.ranks, (std::vector<int>{1, 3}));
  EXPECT_EQ(one.gpus, (std::vector<int>{1, 3}));
  EXPECT_EQ(one.direction, "1->3");
  options.link.both_directions = true;
  EXPECT_EQ(truth_for(options).direction, "1<->3");
}

TEST(ContendTruth, CpuStarveLoadsNoGpu) {
  ContendOptions options;
  options.fault = Fault::cpu_starve;
  options.cpu.target_rank = 3;
  const nlohmann::json json = truth_json(truth_for(options))["truth"];
  EXPECT_EQ(json["fault"], "cpu_starve");
  EXPECT_EQ(json["ranks"], nlohmann::json::array({3}));
  EXPECT_TRUE(json["gpus"].empty());
  EXPECT_TRUE(json["direction"].is_null());
}

TEST(ContendTruth, WrittenWhole) {
  ContendOptions options;
  options.fault = Fault::sm_load;
  options.sm.gpu = 0;
  const std::string path = testing::TempDir() + "contend_truth_test.json";
  write_truth(truth_for(options), path);
  std::ifstream file(path);
  EXPECT_EQ(nlohmann::json::parse(file)["truth"]["ranks"], nlohmann::json::array({0}));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace collbench::contend
