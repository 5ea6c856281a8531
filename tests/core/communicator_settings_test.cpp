// Tests of the communicator axes: --nccl-algo, --nccl-proto, --nccl-max-ctas lists, the groups of
// --split and the config text that names each combination.
#include "core/communicator_settings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.hpp"

namespace collbench {
namespace {

template <typename Parse>
std::string usage_error_of(Parse&& parse) {
  try {
    parse();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(CommunicatorSettings, NamesAreCaseInsensitiveAndWrittenAsNcclSpellsThem) {
  EXPECT_EQ(parse_nccl_algo_list("ring,TREE,nvlstree,collnetdirect,CollnetChain,nvls,pat"),
            (std::vector<std::string>{"Ring", "Tree", "NVLSTree", "CollNetDirect", "CollNetChain",
                                      "NVLS", "PAT"}));
  EXPECT_EQ(parse_nccl_proto_list("ll,LL128,simple"),
            (std::vector<std::string>{"LL", "LL128", "Simple"}));
  // "default" is NCCL's own choice (empty); repeats, in any spelling, are dropped.
  EXPECT_EQ(parse_nccl_algo_list("default,Ring,ring,DEFAULT"),
            (std::vector<std::string>{"", "Ring"}));
  EXPECT_EQ(parse_nccl_proto_list("default"), (std::vector<std::string>{""}));
}

TEST(CommunicatorSettings, BadNamesAreOneLineNamingTheValueAndTheAllowedOnes) {
  const std::string algo = usage_error_of([] { parse_nccl_algo_list("Ring,Rings"); });
  EXPECT_EQ(
      algo,
      "--nccl-algo 'Rings' is not one of Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, "
      "PAT, default");
  const std::string proto = usage_error_of([] { parse_nccl_proto_list("LL256"); });
  EXPECT_EQ(proto, "--nccl-proto 'LL256' is not one of LL, LL128, Simple, default");
  EXPECT_NE(usage_error_of([] { parse_nccl_algo_list("Ring,"); }).find("empty entry"),
            std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_nccl_proto_list(""); }).find("empty entry"),
            std::string::npos);
}

TEST(CommunicatorSettings, CtaLimitsFromOneToSixtyFourOrDefault) {
  EXPECT_EQ(parse_nccl_max_ctas_list("1,8,64,default,8"), (std::vector<int>{1, 8, 64, 0}));
  for (const char* bad : {"0", "65", "-1", "8x", "1000", " 8", "0x8"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(
        usage_error_of([&] { parse_nccl_max_ctas_list(bad); }),
        "--nccl-max-ctas '" + std::string(bad) + "' is not a CTA count from 1 to 64 or default");
  }
}

TEST(CommunicatorSettings, ConfigNamesOnlyWhatDiffersFromNcclsDefaults) {
  EXPECT_EQ(communicator_config({}, 4), "");
  EXPECT_EQ(communicator_config({"Ring", "", 0, std::nullopt}, 4), "nccl_algo=Ring");
  EXPECT_EQ(communicator_config({"", "LL", 8, std::nullopt}, 4), "nccl_proto=LL;nccl_max_ctas=8");
  EXPECT_EQ(communicator_config({"Ring", "LL", 8, std::nullopt}, 4),
            "nccl_algo=Ring;nccl_proto=LL;nccl_max_ctas=8");
  // The group count follows the GPU count: MOD 2 makes one group of 1 GPU, two of 2 or 8.
  const CommunicatorSettings split{"", "", 0, parse_split_rule("mod 2")};
  EXPECT_EQ(communicator_config(split, 1), "split=MOD 2;groups=1");
  EXPECT_EQ(communicator_config(split, 8), "split=MOD 2;groups=2");
  EXPECT_EQ(communicator_config({"Tree", "", 0, parse_split_rule("&0x1")}, 8),
            "nccl_algo=Tree;split=AND 0x1;groups=2");
  EXPECT_TRUE((CommunicatorSettings{"", "Simple", 0, std::nullopt}).restricts_nccl_choice());
  EXPECT_FALSE((CommunicatorSettings{"", "", 8, std::nullopt}).restricts_nccl_choice());
  EXPECT_TRUE((CommunicatorSettings{"", "", 8, std::nullopt}).has_nccl_config());
  EXPECT_FALSE(split.has_nccl_config());
}

TEST(CommunicatorSettings, GroupsOfTheSplitRuleOrOneOfEveryRank) {
  using Groups = std::vector<std::vector<int>>;
  EXPECT_EQ(communicator_groups({}, 3), (Groups{{0, 1, 2}}));
  EXPECT_EQ(communicator_groups({"", "", 0, parse_split_rule("MOD 2")}, 4),
            (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(communicator_groups({"", "", 0, parse_split_rule("DIV 2")}, 4),
            (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(communicator_groups({"", "", 0, parse_split_rule("MOD 2")}, 2), (Groups{{0}, {1}}));
  EXPECT_EQ(describe_groups(communicator_groups({"", "", 0, parse_split_rule("MOD 2")}, 3)),
            "0,2 | 1");
}

TEST(CommunicatorSettings, JoinConfigLeavesEmptyPartsOut) {
  EXPECT_EQ(join_config({}), "");
  EXPECT_EQ(join_config({"", ""}), "");
  EXPECT_EQ(join_config({"ring_ctas=32", ""}), "ring_ctas=32");
  EXPECT_EQ(join_config({"", "nccl_algo=Ring"}), "nccl_algo=Ring");
  EXPECT_EQ(join_config({"a=1", "", "b=2;c=3"}), "a=1;b=2;c=3");
}

}  // namespace
}  // namespace collbench
