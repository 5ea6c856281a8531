// Randomized property tests of the command-line and byte-size parsers (the report reader's are in
// tests/reports/report_fuzz_test.cpp): whatever the input, the result is a value or one clear
// one-line error of the expected type, never a crash, a hang or another exception. Seeded,
// bounded: about a second.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "collbench/options.hpp"
#include "collbench/sweep_plan.hpp"
#include "core/byte_size.hpp"
#include "core/errors.hpp"

namespace collbench {
namespace {

std::string random_text(std::mt19937& random, std::size_t max_length) {
  static const std::string alphabet = "0123456789KMGTkmgtBiB,-.:=allfloatsum \"\n\t\x01\xff";
  std::uniform_int_distribution<std::size_t> length(0, max_length);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string text;
  for (std::size_t i = length(random); i > 0; --i) text += alphabet[pick(random)];
  return text;
}

void expect_one_line(const std::string& message) {
  EXPECT_FALSE(message.empty());
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ParserFuzz, ByteSizesAreAValueOrAUsageError) {
  std::mt19937 random(1);
  for (int i = 0; i < 20000; ++i) {
    const std::string text = random_text(random, 12);
    try {
      EXPECT_GT(parse_byte_size(text, "-b"), 0u) << text;
    } catch (const UsageError& error) {
      expect_one_line(error.what());
    }
  }
}

TEST(ParserFuzz, CommandLinesAreOptionsOrAUsageError) {
  const std::vector<std::string> flags = {
      "--ops", "--algo", "-b",        "-e",         "-f",         "-i",     "-g",
      "-d",    "-o",     "-r",        "--in-place", "-w",         "-n",     "-m",
      "-G",    "-c",     "--timeout", "--seed",     "--launcher", "--list", "--bogus"};
  const std::vector<std::string> values = {"all",
                                           "all_reduce,broadcast",
                                           "8",
                                           "1K",
                                           "8G",
                                           "0",
                                           "-1",
                                           "2",
                                           "1.5",
                                           "1-4",
                                           "2,4",
                                           "float",
                                           "bf16,int8",
                                           "sum,max",
                                           "both",
                                           "in",
                                           "nccl",
                                           "ring",
                                           "x",
                                           "",
                                           "99999999999999999999",
                                           "auto",
                                           "1.0000001"};
  std::mt19937 random(2);
  std::uniform_int_distribution<std::size_t> words(0, 8), flag(0, flags.size() - 1),
      value(0, values.size() - 1);
  std::uniform_int_distribution<int> coin(0, 3);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::string> argv_text = {"collbench"};
    for (std::size_t w = words(random); w > 0; --w) {
      argv_text.push_back(flags[flag(random)]);
      argv_text.push_back(coin(random) == 0 ? random_text(random, 6) : values[value(random)]);
    }
    try {
      const Options options = parse_command_line(argv_text);
      const std::vector<Case> cases = build_sweep(options, 8, /*listing=*/true);
      EXPECT_FALSE(cases.empty());
      EXPECT_LE(cases.size(), kMaxCases);
      ++accepted;
    } catch (const UsageError& error) {
      expect_one_line(error.what());
    }
  }
  EXPECT_GT(accepted, 30);  // the generator reaches valid command lines too
}

}  // namespace
}  // namespace collbench
