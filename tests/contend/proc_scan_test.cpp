// Finding a collbench rank from outside: the launcher's rank in a process environment, the
// process and thread names.
#include "proc_scan.hpp"

#include <gtest/gtest.h>

#include <string>

namespace collbench::contend {
namespace {

std::string environ_block(std::initializer_list<const char*> entries) {
  std::string block;
  for (const char* entry : entries) block += std::string(entry) + '\0';
  return block;
}

TEST(ContendProcScan, LauncherRankInOrderOfLaunchers) {
  EXPECT_EQ(launcher_rank(environ_block({"PATH=/bin", "OMPI_COMM_WORLD_RANK=3"})), 3);
  EXPECT_EQ(launcher_rank(environ_block({"RANK=1", "OMPI_COMM_WORLD_RANK=2"})), 2);
  EXPECT_EQ(launcher_rank(environ_block({"RANK=1", "PMI_RANK=5"})), 5);
  EXPECT_EQ(launcher_rank(environ_block({"RANK=1", "SLURM_PROCID=6"})), 6);
  EXPECT_EQ(launcher_rank(environ_block({"RANK=7"})), 7);
  // The last entry may come without its NUL.
  EXPECT_EQ(launcher_rank("HOME=/root" + std::string(1, '\0') + "RANK=4"), 4);
}

TEST(ContendProcScan, NoRankOrABadOne) {
  EXPECT_FALSE(launcher_rank(environ_block({"PATH=/bin", "LOCAL_RANK=1", "XRANK=2"})));
  EXPECT_FALSE(launcher_rank(environ_block({"RANK=-1"})));
  EXPECT_FALSE(launcher_rank(environ_block({"RANK=two"})));
  EXPECT_FALSE(launcher_rank(""));
}

TEST(ContendProcScan, CollbenchNamesButNotContend) {
  EXPECT_TRUE(is_collbench_name("collbench"));
  EXPECT_TRUE(is_collbench_name("collbench_diagn"));
  EXPECT_FALSE(is_collbench_name("collbench_conte"));
  EXPECT_FALSE(is_collbench_name("python3"));
  EXPECT_FALSE(is_collbench_name("prted"));
}

TEST(ContendProcScan, ProcessNamesAreCutAsTheKernelCutsThem) {
  EXPECT_TRUE(matches_process_name("collbench_diagn", "collbench_diagnose"));
  EXPECT_TRUE(matches_process_name("collbench", "collbench"));
  EXPECT_FALSE(matches_process_name("collbench_diagn", "collbench"));
  EXPECT_FALSE(matches_process_name("collbench", "collbench_diagnose"));
  EXPECT_FALSE(matches_process_name("", ""));
}

TEST(ContendProcScan, RankThreadNames) {
  EXPECT_EQ(rank_thread_name(3), "cb-rank-3");
  EXPECT_LE(rank_thread_name(1'000'000).size(), 15u);
}

}  // namespace
}  // namespace collbench::contend
