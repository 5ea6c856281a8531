// The committed fixture files are exactly what the generator writes, and are valid reports; the
// gate and plot tests use them as files.
#include <gtest/gtest.h>

#include "reports/csv_reader.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::fixtures {
namespace {

TEST(Fixtures, CommittedFilesMatchTheGenerator) {
  for (const FixtureFile& fixture : fixture_files()) {
    const std::string path = std::string(COLLBENCH_FIXTURE_DIR) + "/" + fixture.name;
    EXPECT_EQ(read_file(path), fixture.text)
        << path << " is stale: regenerate with `collreport_fixtures tests/reports/fixtures`";
    EXPECT_NO_THROW(report::read_report(path)) << path;
  }
}

}  // namespace
}  // namespace collbench::fixtures
