// key=value;... texts (the config and extra columns): whole keys only, empty parts skipped.
#include "reports/key_values.hpp"

#include <gtest/gtest.h>

namespace collbench::report {
namespace {

TEST(KeyValues, ValueOfAWholeKey) {
  EXPECT_EQ(key_value("src=0;dst=3;direction=bi", "dst"), "3");
  EXPECT_EQ(key_value("xsrc=1;src=2", "src"), "2");
  EXPECT_EQ(key_value("nccl_protocol=x;nccl_proto=LL", "nccl_proto"), "LL");
  EXPECT_EQ(key_value("split=MOD 2;groups=2", "split"), "MOD 2");
  EXPECT_EQ(key_value("src=0;dst=3", "direction"), std::nullopt);
  EXPECT_EQ(key_value("", "src"), std::nullopt);
  EXPECT_EQ(key_value("src=", "src"), "");
}

TEST(KeyValues, WithoutAKeyKeepsTheRestInOrder) {
  EXPECT_EQ(without_key("a2av_spread=1;nccl_proto=Simple", "nccl_proto"), "a2av_spread=1");
  EXPECT_EQ(without_key("nccl_protocol=x;nccl_proto=Simple;", "nccl_proto"), "nccl_protocol=x");
  EXPECT_EQ(without_key("nccl_proto=Simple", "nccl_proto"), "");
  EXPECT_EQ(without_key("a=1;;b=2", "c"), "a=1;b=2");
  EXPECT_EQ(without_key("", "c"), "");
}

}  // namespace
}  // namespace collbench::report
