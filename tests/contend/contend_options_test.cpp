// collbench_contend's command line: each fault's options, and bad input named in one line.
#include "contend_options.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "contend_errors.hpp"

namespace collbench::contend {
namespace {

std::optional<ContendOptions> parse(std::vector<std::string> words, std::string* help = nullptr) {
  words.insert(words.begin(), "collbench_contend");
  std::vector<const char*> argv;
  for (const std::string& word : words) argv.push_back(word.c_str());
  std::ostringstream out;
  auto options = parse_contend_options(static_cast<int>(argv.size()), argv.data(), out);
  if (help) *help = out.str();
  return options;
}

std::string usage_error(std::vector<std::string> words) {
  try {
    parse(std::move(words));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(ContendOptions, SmLoadDefaultsToGemm) {
  const auto options = parse({"--sm-load", "2", "--duration-s", "1.5", "--truth", "t.json"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->fault, Fault::sm_load);
  EXPECT_EQ(options->sm.gpu, 2);
  EXPECT_EQ(options->sm.kind, SmKind::gemm);
  EXPECT_DOUBLE_EQ(options->duration_s, 1.5);
  EXPECT_EQ(options->truth_path, "t.json");
  EXPECT_EQ(parse({"--sm-load", "0", "--sm-kind", "spin"})->sm.kind, SmKind::spin);
}

TEST(ContendOptions, LinkLoadBothDirections) {
  const auto options = parse({"--link-load", "1:3", "--direction", "both"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->fault, Fault::link_load);
  EXPECT_EQ(options->link.src_gpu, 1);
  EXPECT_EQ(options->link.dst_gpu, 3);
  EXPECT_TRUE(options->link.both_directions);
  EXPECT_FALSE(parse({"--link-load", "0:1"})->link.both_directions);
}

TEST(ContendOptions, CpuStarveTargets) {
  const auto options =
      parse({"--cpu-starve", "--target-rank", "3", "--target-process", "collbench_diagnose",
             "--core", "5", "--cpu-threads", "2", "--wait-s", "0.5"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->fault, Fault::cpu_starve);
  EXPECT_EQ(options->cpu.target_rank, 3);
  EXPECT_EQ(options->cpu.target_process, "collbench_diagnose");
  EXPECT_EQ(options->cpu.core, 5);
  EXPECT_EQ(options->cpu.busy_threads, 2);
  EXPECT_DOUBLE_EQ(options->cpu.wait_s, 0.5);
  const auto defaults = parse({"--cpu-starve", "--target-rank", "0"});
  EXPECT_FALSE(defaults->cpu.core);
  EXPECT_EQ(defaults->cpu.busy_threads, 4);
  EXPECT_DOUBLE_EQ(defaults->cpu.wait_s, 60);
  EXPECT_TRUE(defaults->cpu.target_process.empty());
}

TEST(ContendOptions, HelpDocumentsTheContract) {
  std::string help;
  EXPECT_FALSE(parse({"--help"}, &help));
  for (const char* needed : {"collbench_contend: ready: <detail>", "GPU INDEX == RANK",
                             "OMPI_COMM_WORLD_RANK", "cb-rank-R", "\"truth\"", "Exit status"})
    EXPECT_NE(help.find(needed), std::string::npos) << needed;
}

TEST(ContendOptions, BadInputNamesTheValue) {
  EXPECT_EQ(usage_error({}),
            "no fault: choose one of --sm-load GPU, --link-load SRC:DST, --cpu-starve");
  EXPECT_EQ(usage_error({"--sm-load", "1", "--cpu-starve"}),
            "more than one fault: choose one of --sm-load, --link-load, --cpu-starve");
  EXPECT_EQ(usage_error({"--sm-load", "-1"}), "--sm-load -1: not a GPU index (0 or more)");
  EXPECT_EQ(usage_error({"--sm-load", "0", "--sm-kind", "fast"}),
            "--sm-kind fast: not gemm or spin");
  EXPECT_EQ(usage_error({"--link-load", "2:2"}), "--link-load 2:2: SRC and DST are one GPU");
  EXPECT_EQ(usage_error({"--link-load", "2"}), "--link-load 2: not SRC:DST (two GPU indices)");
  EXPECT_EQ(usage_error({"--link-load", "0:1", "--direction", "up"}),
            "--direction up: not one or both");
  EXPECT_EQ(usage_error({"--cpu-starve"}), "--cpu-starve needs --target-rank R");
  EXPECT_EQ(usage_error({"--cpu-starve", "--target-rank", "1", "--cpu-threads", "0"}),
            "--cpu-threads 0: not a thread count (1 to 1024)");
  EXPECT_EQ(usage_error({"--cpu-starve", "--target-rank", "1", "--wait-s", "0"}),
            "--wait-s 0: not a number of seconds (above 0, at most 1e7)");
  EXPECT_EQ(usage_error({"--sm-load", "0", "--duration-s", "nan"}),
            "--duration-s nan: not a number of seconds (0 to 1e7)");
}

TEST(ContendOptions, AnotherFaultsOptionIsRefused) {
  EXPECT_EQ(usage_error({"--sm-load", "0", "--direction", "both"}),
            "--direction needs --link-load");
  EXPECT_EQ(usage_error({"--link-load", "0:1", "--sm-kind", "spin"}), "--sm-kind needs --sm-load");
  EXPECT_EQ(usage_error({"--sm-load", "0", "--target-rank", "1"}),
            "--target-rank needs --cpu-starve");
  EXPECT_EQ(usage_error({"--link-load", "0:1", "--core", "1"}), "--core needs --cpu-starve");
}

}  // namespace
}  // namespace collbench::contend
