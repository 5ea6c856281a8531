// Tests of the scoped environment override and of NCCL's view of the communicator settings:
// NCCL_ALGO/NCCL_PROTO set while the object lives and restored after, ncclConfig_t fields.
#include "runtime/nccl_settings.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "runtime/scoped_environment.hpp"

namespace collbench {
namespace {

// The variable's value, or "<unset>".
std::string value_of(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "<unset>";
}

// Tests that touch NCCL_ALGO/NCCL_PROTO; they are unset before and after, whatever failed.
class NcclEnvironment : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    unsetenv("NCCL_ALGO");
    unsetenv("NCCL_PROTO");
    unsetenv("COLLBENCH_TEST_VARIABLE");
  }
};

TEST_F(NcclEnvironment, ScopedEnvironmentRestoresPreviousValuesAndAbsence) {
  setenv("NCCL_PROTO", "Simple", 1);
  {
    ScopedEnvironment scoped(
        {{"NCCL_ALGO", std::string("Tree")}, {"NCCL_PROTO", std::string("LL")}});
    EXPECT_EQ(value_of("NCCL_ALGO"), "Tree");
    EXPECT_EQ(value_of("NCCL_PROTO"), "LL");
  }
  EXPECT_EQ(value_of("NCCL_ALGO"), "<unset>");  // was not set: removed again
  EXPECT_EQ(value_of("NCCL_PROTO"), "Simple");  // was set: its value back
}

TEST_F(NcclEnvironment, ScopedEnvironmentLeavesUnchosenVariablesAlone) {
  setenv("NCCL_ALGO", "Ring", 1);
  {
    ScopedEnvironment scoped(
        {{"NCCL_ALGO", std::nullopt}, {"COLLBENCH_TEST_VARIABLE", std::string("1")}});
    EXPECT_EQ(value_of("NCCL_ALGO"), "Ring");
    EXPECT_EQ(value_of("COLLBENCH_TEST_VARIABLE"), "1");
    setenv("NCCL_ALGO", "Tree", 1);  // not the override's: kept
  }
  EXPECT_EQ(value_of("NCCL_ALGO"), "Tree");
  EXPECT_EQ(value_of("COLLBENCH_TEST_VARIABLE"), "<unset>");
}

TEST_F(NcclEnvironment, AMovedOverrideRestoresOnce) {
  std::optional<ScopedEnvironment> outer;
  {
    ScopedEnvironment scoped({{"NCCL_ALGO", std::string("Tree")}});
    outer.emplace(std::move(scoped));
  }
  EXPECT_EQ(value_of("NCCL_ALGO"), "Tree");  // the moved-from object restores nothing
  outer.reset();
  EXPECT_EQ(value_of("NCCL_ALGO"), "<unset>");
}

TEST_F(NcclEnvironment, NcclEnvironmentSetsOnlyTheChosenVariables) {
  setenv("NCCL_PROTO", "LL128", 1);
  {
    const ScopedEnvironment scoped = nccl_environment({"Ring", "", 8, std::nullopt});
    EXPECT_EQ(value_of("NCCL_ALGO"), "Ring");
    EXPECT_EQ(value_of("NCCL_PROTO"), "LL128");  // left to NCCL: the user's value applies
  }
  EXPECT_EQ(value_of("NCCL_ALGO"), "<unset>");
  {
    const ScopedEnvironment scoped = nccl_environment({"", "Simple", 0, std::nullopt});
    EXPECT_EQ(value_of("NCCL_ALGO"), "<unset>");
    EXPECT_EQ(value_of("NCCL_PROTO"), "Simple");
  }
  EXPECT_EQ(value_of("NCCL_PROTO"), "LL128");
}

TEST(NcclConfig, OnlyWhenAFieldDiffersFromNcclsDefaults) {
  EXPECT_FALSE(nccl_config({}).has_value());
  EXPECT_FALSE(nccl_config({"Ring", "LL", 0, std::nullopt}).has_value());  // environment only
  const std::optional<ncclConfig_t> config = nccl_config({"", "", 8, std::nullopt});
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->maxCTAs, 8);
  EXPECT_EQ(config->minCTAs, NCCL_CONFIG_UNDEF_INT);  // NCCL's default (1; lowered to max if above)
  EXPECT_EQ(config->size, sizeof(ncclConfig_t));
  EXPECT_EQ(config->magic, 0xcafebeefu);
}

}  // namespace
}  // namespace collbench
