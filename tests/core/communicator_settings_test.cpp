// Tests of the communicator axes: --nccl-algo, --nccl-proto, --nccl-max-ctas lists (and the
// environment's NCCL_* in their default entries), the groups of --split and the config text that
// names each combination.
#include "core/communicator_settings.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/config_column.hpp"
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

TEST(ConfigColumn, AppendConfigLeavesEmptyPartsOut) {
  std::string config;
  append_config(config, "");
  EXPECT_EQ(config, "");
  append_config(config, "ring_ctas=32");
  append_config(config, "");
  EXPECT_EQ(config, "ring_ctas=32");
  append_config(config, "nccl_algo=Ring;split=MOD 2;groups=2");
  EXPECT_EQ(config, "ring_ctas=32;nccl_algo=Ring;split=MOD 2;groups=2");
  std::string from_empty;
  append_config(from_empty, "register=local");
  EXPECT_EQ(from_empty, "register=local");
}

// The user's NCCL_ALGO, NCCL_PROTO and NCCL_MAX_CTAS fill the "default" entries, so that the rows
// of `NCCL_ALGO=Ring` are named as those of `--nccl-algo Ring`.
TEST(CommunicatorSettings, EnvironmentFillsTheDefaultEntries) {
  std::vector<std::string> algos = {""}, protos = {""};
  std::vector<int> ctas = {0};
  apply_environment_defaults({"ring", "ll128", "16"}, algos, protos, ctas);
  EXPECT_EQ(algos, (std::vector<std::string>{"Ring"}));
  EXPECT_EQ(protos, (std::vector<std::string>{"LL128"}));
  EXPECT_EQ(ctas, (std::vector<int>{16}));
  EXPECT_EQ(communicator_config({algos[0], protos[0], ctas[0], std::nullopt}, 2),
            "nccl_algo=Ring;nccl_proto=LL128;nccl_max_ctas=16");

  // Explicit entries stay; a default entry that becomes one of them is dropped.
  algos = {"Tree", "", "Ring"};
  protos = {"Simple"};
  apply_environment_defaults({"RING", std::nullopt, std::nullopt}, algos, protos, ctas);
  EXPECT_EQ(algos, (std::vector<std::string>{"Tree", "Ring"}));
  EXPECT_EQ(protos, (std::vector<std::string>{"Simple"}));

  // NCCL's other forms (a list, an exclusion) are written as they are; unset or empty is NCCL's
  // own choice.
  algos = {""};
  protos = {""};
  ctas = {0};
  apply_environment_defaults({"^NVLS,Tree", "", std::nullopt}, algos, protos, ctas);
  EXPECT_EQ(algos, (std::vector<std::string>{"^NVLS,Tree"}));
  EXPECT_EQ(protos, (std::vector<std::string>{""}));
  EXPECT_EQ(ctas, (std::vector<int>{0}));
  // NCCL's per-operation form keeps the config column's parts apart.
  algos = {""};
  apply_environment_defaults({"allreduce:tree;broadcast:ring", std::nullopt, std::nullopt}, algos,
                             protos, ctas);
  EXPECT_EQ(algos, (std::vector<std::string>{"allreduce:tree;broadcast:ring"}));
  EXPECT_EQ(communicator_config({algos[0], "", 0, std::nullopt}, 2),
            "nccl_algo=allreduce:tree|broadcast:ring");

  EXPECT_EQ(
      usage_error_of([&] {
        apply_environment_defaults({std::nullopt, std::nullopt, "65"}, algos, protos, ctas);
      }),
      "NCCL_MAX_CTAS '65' in the environment is not a CTA count from 1 to 64; fix or unset it");
  EXPECT_EQ(
      usage_error_of([&] {
        apply_environment_defaults({std::nullopt, std::nullopt, "x"}, algos, protos, ctas);
      }),
      "NCCL_MAX_CTAS 'x' in the environment is not a CTA count from 1 to 64; fix or unset it");
}

// A run that chooses nothing itself (collbench_replay) names what the environment chose, as
// collbench names its "default" entries under the same variables.
TEST(CommunicatorSettings, EnvironmentConfigIsWhatTheDefaultsRunUnder) {
  EXPECT_EQ(environment_nccl_config({std::nullopt, std::nullopt, std::nullopt}), "");
  EXPECT_EQ(environment_nccl_config({"tree", std::nullopt, "8"}), "nccl_algo=Tree;nccl_max_ctas=8");
  EXPECT_EQ(environment_nccl_config({"allreduce:tree;broadcast:ring", "simple", std::nullopt}),
            "nccl_algo=allreduce:tree|broadcast:ring;nccl_proto=Simple");
  EXPECT_EQ(
      usage_error_of([] {
        environment_nccl_config({std::nullopt, std::nullopt, "0"});
      }),
      "NCCL_MAX_CTAS '0' in the environment is not a CTA count from 1 to 64; fix or unset it");
}

}  // namespace
}  // namespace collbench
