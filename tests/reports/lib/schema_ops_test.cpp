// The schema's op names against the collective registry: every collective the registry holds is a
// collective op of the schema and nothing else is, and every other op the schema accepts is one
// app's, named once.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/collective_registry.hpp"
#include "reports/schema.hpp"

namespace collbench::report {
namespace {

std::set<std::string> registry_names() {
  std::set<std::string> names;
  for (const CollectiveSpec& spec : collective_registry()) names.emplace(spec.name);
  return names;
}

TEST(SchemaOps, TheCollectiveOpsAreTheRegistrysNames) {
  const std::set<std::string> schema(kCollectiveOps.begin(), kCollectiveOps.end());
  EXPECT_EQ(schema.size(), kCollectiveOps.size()) << "a collective op is listed twice";
  EXPECT_EQ(schema, registry_names());
}

TEST(SchemaOps, EveryOtherOpBelongsToOneApp) {
  const std::set<std::string> collectives = registry_names();
  std::set<std::string> app_ops;
  for (const AppOp& app_op : kAppOps) {
    EXPECT_EQ(collectives.count(app_op.op), 0u) << app_op.op << " is a collective, not an app's";
    EXPECT_TRUE(app_ops.insert(app_op.op).second) << app_op.op << " belongs to two apps";
    EXPECT_NE(std::string(app_op.app), "") << app_op.op << " names no app";
  }
}

TEST(SchemaOps, TheReaderAcceptsExactlyTheCollectivesAndTheAppsOps) {
  std::set<std::string> expected = registry_names();
  for (const AppOp& app_op : kAppOps) expected.insert(app_op.op);
  const std::set<std::string> known(kKnownOps.begin(), kKnownOps.end());
  EXPECT_EQ(known, expected);
  EXPECT_EQ(known.size(), kKnownOps.size()) << "an op is listed twice";
  ReportRow row;
  for (const std::string& op : expected) {
    row.op = op;
    EXPECT_NO_THROW(kColumns[column_index("op")].check(row)) << op;
  }
  row.op = "all_to_all";
  EXPECT_THROW(kColumns[column_index("op")].check(row), ColumnParseError);
}

}  // namespace
}  // namespace collbench::report
