// Tests of NCCL_TESTS_SPLIT rules: parsing, colors and the groups they make on 8 and 16 ranks.
#include "core/split_rule.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.hpp"

namespace collbench {
namespace {

using Groups = std::vector<std::vector<int>>;

Groups groups_of(const std::string& rule, int ranks) {
  return split_groups(parse_split_rule(rule), ranks);
}

std::string usage_error_of(const std::string& rule) {
  try {
    parse_split_rule(rule);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(SplitRule, ParsesEveryOperatorSpelling) {
  for (const char* text : {"AND 0x7", "and 7", "&7", "& 0x7", "  And\t0X7  "}) {
    const SplitRule rule = parse_split_rule(text);
    EXPECT_EQ(rule.op, SplitRule::Op::and_) << text;
    EXPECT_EQ(rule.value, 7) << text;
  }
  EXPECT_EQ(parse_split_rule("OR 1").op, SplitRule::Op::or_);
  EXPECT_EQ(parse_split_rule("|1").op, SplitRule::Op::or_);
  EXPECT_EQ(parse_split_rule("mod 2").op, SplitRule::Op::mod);
  EXPECT_EQ(parse_split_rule("% 2").op, SplitRule::Op::mod);
  EXPECT_EQ(parse_split_rule("Div 4").op, SplitRule::Op::div);
  EXPECT_EQ(parse_split_rule("/4").value, 4);
  EXPECT_EQ(parse_split_rule("AND 0").value, 0);  // every rank one color: one group
}

TEST(SplitRule, CanonicalTextRoundTrips) {
  EXPECT_EQ(parse_split_rule("&7").text(), "AND 0x7");
  EXPECT_EQ(parse_split_rule("| 0x1").text(), "OR 0x1");
  EXPECT_EQ(parse_split_rule("%0x10").text(), "MOD 16");
  EXPECT_EQ(parse_split_rule("div 4").text(), "DIV 4");
  for (const char* text : {"AND 0x7", "OR 0x1", "MOD 2", "DIV 8", "AND 0x0"}) {
    const SplitRule rule = parse_split_rule(text);
    EXPECT_EQ(rule.text(), text);
    const SplitRule again = parse_split_rule(rule.text());
    EXPECT_EQ(again.op, rule.op);
    EXPECT_EQ(again.value, rule.value);
  }
}

// nccl-tests' README examples, on one node of 8 GPUs and on two.
TEST(SplitRule, AndSevenOrModEightGivesOneRankPerNode) {
  EXPECT_EQ(groups_of("AND 0x7", 8), (Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
  const Groups across_nodes{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}};
  EXPECT_EQ(groups_of("AND 0x7", 16), across_nodes);
  EXPECT_EQ(groups_of("MOD 8", 16), across_nodes);
}

TEST(SplitRule, OrSevenOrDivEightGivesOneGroupPerNode) {
  EXPECT_EQ(groups_of("OR 0x7", 8), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  const Groups per_node{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}};
  EXPECT_EQ(groups_of("OR 0x7", 16), per_node);
  EXPECT_EQ(groups_of("DIV 8", 16), per_node);
}

TEST(SplitRule, ModTwoOrAndOneGivesEveryOtherRank) {
  const Groups eight{{0, 2, 4, 6}, {1, 3, 5, 7}};
  EXPECT_EQ(groups_of("MOD 2", 8), eight);
  EXPECT_EQ(groups_of("AND 1", 8), eight);
  const Groups sixteen{{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}};
  EXPECT_EQ(groups_of("MOD 2", 16), sixteen);
  EXPECT_EQ(groups_of("AND 1", 16), sixteen);
}

TEST(SplitRule, DivFourGivesBlocksOfFour) {
  EXPECT_EQ(groups_of("DIV 4", 8), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(groups_of("DIV 4", 16),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
}

TEST(SplitRule, OrOnePairsNeighbours) {
  const SplitRule rule = parse_split_rule("OR 1");
  std::vector<int> colors;
  for (int rank = 0; rank < 8; ++rank) colors.push_back(rule.color(rank));
  EXPECT_EQ(colors, (std::vector<int>{1, 1, 3, 3, 5, 5, 7, 7}));
  EXPECT_EQ(split_groups(rule, 8), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(split_groups(rule, 16).size(), 8u);
}

TEST(SplitRule, GroupsAreOrderedByColorNotByFirstRank) {
  // MOD 3 on 4 ranks: colors 0,1,2,0.
  EXPECT_EQ(groups_of("MOD 3", 4), (Groups{{0, 3}, {1}, {2}}));
}

TEST(SplitRule, BadTextsSayWhatIsWrong) {
  EXPECT_EQ(
      usage_error_of("XOR 1"),
      "split rule 'XOR 1' has an unknown operator (expected AND, OR, MOD, DIV or &, |, %, / and a "
      "number, e.g. 'MOD 2')");
  EXPECT_EQ(usage_error_of(""),
            "split rule '' has an unknown operator (expected AND, OR, MOD, DIV or &, |, %, / and a "
            "number, e.g. 'MOD 2')");
  EXPECT_EQ(usage_error_of("MOD"), "split rule 'MOD' has no number after MOD");
  EXPECT_EQ(usage_error_of("& "), "split rule '& ' has no number after AND");
  for (const std::string rule : {"AND 7x", "DIV 0x", "MOD 1.5", "OR 99999999999", "AND 0b11"}) {
    const std::string number = rule.substr(rule.find(' ') + 1);
    EXPECT_EQ(usage_error_of(rule), "split rule '" + rule + "' has a bad number '" + number +
                                        "' (expected decimal or 0x hex up to 2147483647)");
  }
  EXPECT_EQ(usage_error_of("MOD -2"), "split rule 'MOD -2' has a negative number '-2'");
  EXPECT_EQ(usage_error_of("MOD 0"), "split rule 'MOD 0' divides by zero (MOD 0)");
  EXPECT_EQ(usage_error_of("/0x0"), "split rule '/0x0' divides by zero (DIV 0)");
}

}  // namespace
}  // namespace collbench
