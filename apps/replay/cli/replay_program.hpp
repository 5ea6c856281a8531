// collbench_replay in the shared frame: the frame answers --help and --version, turns bad input
// and refused workloads into one line and exit status 2; the subcommand runs as work that needs
// no plan, since nothing of it touches a GPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/replay_options.hpp"
#include "frame/program.hpp"

namespace collbench::replay {

class ReplayProgram : public Program {
 public:
  std::string_view name() const override { return "collbench_replay"; }
  std::string help() const override;
  void parse(const std::vector<std::string>& args) override;
  const CommonSettings& common() const override { return options_.common; }
  std::optional<int> run_without_plan() override;
  // Every subcommand ends in run_without_plan: the frame never reaches a plan (no GPU replay yet).
  void start(RunContext& run) override;
  void run_plan(RunContext& run) override;
  int finish(RunContext& run) override;
  void abort() noexcept override {}

 private:
  ReplayOptions options_;
};

}  // namespace collbench::replay
