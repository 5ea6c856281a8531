// collbench_diagnose's command line and its test-only faults.
#include "diagnose_options.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace collbench::diagnose {
namespace {

DiagnoseOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "collbench_diagnose");
  return parse_diagnose_options(args);
}

void expect_usage_error(const std::vector<std::string>& args, const std::string& message) {
  try {
    parse(args);
    ADD_FAILURE() << "no error for " << args.front();
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
  }
}

TEST(DiagnoseOptions, DefaultsAndValues) {
  const DiagnoseOptions defaults = parse({});
  EXPECT_EQ(defaults.pair_bytes, std::size_t{256} << 20);
  EXPECT_EQ(defaults.latency_bytes, 8u);
  EXPECT_EQ(defaults.iterations, 5);
  EXPECT_DOUBLE_EQ(defaults.thresholds.slow_ratio, 0.8);
  EXPECT_DOUBLE_EQ(defaults.thresholds.spread_factor, 5);
  EXPECT_DOUBLE_EQ(defaults.copy_window_ms, 50);
  EXPECT_EQ(defaults.latency_round_trips, 20);
  EXPECT_EQ(defaults.arrival_iterations, 30);
  EXPECT_EQ(defaults.arrival_bytes, std::size_t{1} << 20);
  EXPECT_TRUE(defaults.rechecks);
  EXPECT_EQ(defaults.fault.kind, InjectedFault::Kind::none);
  EXPECT_EQ(defaults.fault.text, "");
  const DiagnoseOptions set =
      parse({"--pair-bytes", "64M", "--collective-bytes", "1G", "-n", "9", "--slow-ratio", "0.7",
             "--json", "d.json", "--timeout", "12", "--spread-factor", "4", "--arrival-floor-us",
             "35", "--no-rechecks", "--arrival-iterations", "50"});
  EXPECT_EQ(set.pair_bytes, std::size_t{64} << 20);
  EXPECT_EQ(set.collective_bytes, std::size_t{1} << 30);
  EXPECT_EQ(set.iterations, 9);
  EXPECT_DOUBLE_EQ(set.thresholds.slow_ratio, 0.7);
  EXPECT_DOUBLE_EQ(set.thresholds.spread_factor, 4);
  EXPECT_DOUBLE_EQ(set.thresholds.arrival_floor_us, 35);
  EXPECT_FALSE(set.rechecks);
  EXPECT_EQ(set.arrival_iterations, 50);
  EXPECT_EQ(set.json_path, "d.json");
  EXPECT_DOUBLE_EQ(set.common.timeout_s, 12);
}

TEST(DiagnoseOptions, BadValuesAreOneLineNamingThem) {
  expect_usage_error({"--pair-bytes", "1K"}, "--pair-bytes 1K is less than 1048576 B");
  expect_usage_error({"-n", "0"}, "--iters 0 is not from 1 to 32");
  expect_usage_error({"-n", "33"}, "--iters 33 is not from 1 to 32");
  expect_usage_error({"--slow-ratio", "1.5"}, "--slow-ratio 1.5 is not above 0 and at most 1");
  expect_usage_error({"--spread-factor", "0"}, "--spread-factor 0 is not above 0 and at most 100");
  expect_usage_error({"--arrival-iterations", "2"}, "--arrival-iterations 2 is not from 3 to 1000");
  expect_usage_error({"--copy-window-ms", "0"},
                     "--copy-window-ms 0 is not above 0 and at most 60000");
  expect_usage_error({"--latency-round-trips", "0"}, "--latency-round-trips 0 is not from 1 to 50");
  expect_usage_error({"--timeout", "0"}, "--timeout 0 is not above 0 and at most 86400 seconds");
  expect_usage_error({"--timeout", "100000"},
                     "--timeout 100000 is not above 0 and at most 86400 seconds");
  expect_usage_error({"--launcher", "slurmish"}, "slurmish");
}

TEST(DiagnoseOptions, InjectedFaults) {
  const InjectedFault slow = parse_injected_fault("slow_gpu:1");
  EXPECT_EQ(slow.kind, InjectedFault::Kind::slow_gpu);
  EXPECT_EQ(slow.rank, 1);
  EXPECT_DOUBLE_EQ(slow.amount, 0.5);
  EXPECT_EQ(slow.text, "slow_gpu:1");
  EXPECT_DOUBLE_EQ(parse_injected_fault("slow_gpu:0:0.5").amount, 0.5);
  const InjectedFault late = parse_injected_fault("late_rank:3");
  EXPECT_EQ(late.kind, InjectedFault::Kind::late_rank);
  EXPECT_EQ(late.rank, 3);
  EXPECT_DOUBLE_EQ(late.amount, 2);
  EXPECT_DOUBLE_EQ(parse_injected_fault("late_rank:3:7.5").amount, 7.5);
  const InjectedFault missing = parse_injected_fault("missing_rank:2");
  EXPECT_EQ(missing.kind, InjectedFault::Kind::missing_rank);
  EXPECT_EQ(missing.rank, 2);
  EXPECT_EQ(parse_injected_fault("").kind, InjectedFault::Kind::none);
  EXPECT_EQ(parse({"--inject", "late_rank:1:4"}).fault.text, "late_rank:1:4");
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"slow_gpu", "expected KIND:RANK[:AMOUNT]"},
           {"fast_gpu:1", "the kind is not slow_gpu, late_rank or missing_rank"},
           {"slow_gpu:-1", "the rank is not a non-negative integer"},
           {"slow_gpu:x", "the rank is not a non-negative integer"},
           {"slow_gpu:1:1.5", "the SM share is not in (0, 1]"},
           {"late_rank:1:0", "the delay is not in (0, 1000] ms"},
           {"missing_rank:1:3", "missing_rank takes no amount"},
           {"late_rank:1:2:3", "expected KIND:RANK[:AMOUNT]"}}) {
    try {
      parse_injected_fault(text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()), "--inject '" + text + "': " + why);
    }
  }
}

}  // namespace
}  // namespace collbench::diagnose
