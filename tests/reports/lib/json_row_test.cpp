// Report rows as JSON objects: a round trip keeps every column, values keep their JSON types,
// and each kind of bad value is an error naming its column.
#include "reports/json_row.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "reports/csv_writer.hpp"
#include "reports/schema.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::report {
namespace {

using nlohmann::json;

// Every column away from its default, so a column the round trip loses shows: a fixture's
// measured row (8 GiB: beyond 32 bits) with the columns it leaves at their defaults set.
ReportRow populated_row() {
  ReportRow row = fixtures::measured_row("broadcast", "nccl", 16, 8589934592ull, 84.626, 100.125);
  row.origin.launch_mode = "mpi";  // not the default, single_process
  row.origin.nodes = 2;
  row.root = 3;
  row.in_place = true;
  row.agg_iters = 2;
  row.graph = 5;
  row.repeat = 2;
  row.config = "ring_ctas=32;timing=loop";
  row.time.samples = 1234;
  row.stop = kStopTimeLimit;
  row.time.confidence_pct = 99;
  row.time.stdev_us = 6.375;
  row.time.cv_pct = 6.281;
  row.time.p50_lo_us = 99.5;
  row.time.p50_hi_us = 100.75;
  row.time.mean_lo_us = 100.5;
  row.time.mean_hi_us = 102.125;
  row.busbw_gbps_lo = 84.25;
  row.busbw_gbps_hi = 85.375;
  row.wrong_elements = 3;
  row.status = kStatusError;
  row.reason = "3 wrong elements, \"first\" at 17";
  row.extra = "samples_per_s=12.5";
  return row;
}

// Whether `value` has the JSON type of a column of `kind`.
bool has_type_of(ColumnKind kind, const json& value) {
  switch (kind) {
    case ColumnKind::integer:
      return value.is_number_integer();
    case ColumnKind::real:
      return value.is_number();
    case ColumnKind::boolean:
      return value.is_boolean();
    case ColumnKind::text:
      return value.is_string();
  }
  return false;
}

// The error `object` gives, or a failure when it reads cleanly.
std::string parse_error(const json& object) {
  try {
    row_from_json(object);
  } catch (const ColumnParseError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted: " << object.dump();
  return "";
}

// `object` with `column` set to `value`.
json with(json object, const std::string& column, const json& value) {
  object[column] = value;
  return object;
}

TEST(JsonRow, PopulatedRowIsPopulated) {
  const ReportRow row = populated_row();
  const ReportRow defaults;
  for (const Column& column : kColumns) {
    if (std::string(column.name) == "schema_version") continue;  // always the current version
    EXPECT_NE(column.format(row), column.format(defaults)) << column.name;
  }
}

TEST(JsonRow, RoundTripKeepsEveryColumn) {
  const ReportRow row = populated_row();
  const json object = row_to_json(row);
  ASSERT_EQ(object.size(), kColumnCount);
  const ReportRow back = row_from_json(object);
  EXPECT_EQ(format_row(back), format_row(row));
  EXPECT_EQ(back.bytes, 8589934592ull);
  EXPECT_EQ(back.root, 3);
  EXPECT_TRUE(back.in_place);
  EXPECT_EQ(back.time.p50_us, 100.125);
  EXPECT_EQ(back.reason, row.reason);
  // Through text too, as a JSON Lines file carries it.
  EXPECT_EQ(format_row(row_from_json(json::parse(object.dump()))), format_row(row));
  // A default row (no interval, root 0) needs only a valid op, algo, ranks and so on.
  ReportRow plain = populated_row();
  plain.root = -1;
  plain.time.confidence_pct = 0;
  plain.time.p50_lo_us = plain.time.p50_hi_us = 0;
  EXPECT_EQ(format_row(row_from_json(row_to_json(plain))), format_row(plain));
}

// Sample files written before version 3 carry version 2 rows: read as the CSV reader reads a
// version 2 report, the later columns at their defaults.
TEST(JsonRow, AnOlderRowReadsWithoutTheLaterColumns) {
  json object = row_to_json(populated_row());
  object["schema_version"] = 2;
  object.erase("time_us_mean_lo");
  object.erase("time_us_mean_hi");
  const ReportRow row = row_from_json(object);
  EXPECT_EQ(row.schema_version, 2);
  EXPECT_EQ(row.time.mean_lo_us, 0);
  EXPECT_EQ(row.time.mean_hi_us, 0);
  EXPECT_EQ(row.time.p50_hi_us, 100.75);
  EXPECT_EQ(row.repeat, 2);  // a version 2 column

  object["schema_version"] = 1;
  const std::string mixed = parse_error(object);
  EXPECT_NE(mixed.find("column 'schema_version': 1, but the row holds column 'repeat' of "
                       "version 2"),
            std::string::npos)
      << mixed;
  object["schema_version"] = 3;
  EXPECT_NE(parse_error(object).find("column 'time_us_mean_lo' is missing"), std::string::npos);
  for (const json& version : {json(4), json(0), json("3"), json(2.5)}) {
    object["schema_version"] = version;
    EXPECT_NE(parse_error(object).find("column 'schema_version': " + version.dump() +
                                       " is not a version this tool reads (1 to 3)"),
              std::string::npos)
        << version;
  }
}

TEST(JsonRow, NumbersAreNumbersAndBooleansBooleans) {
  const json object = row_to_json(populated_row());
  for (const Column& column : kColumns) {
    const json& value = object.at(column.name);
    EXPECT_TRUE(has_type_of(column.kind, value)) << column.name << " " << value;
  }
  EXPECT_EQ(object.at("bytes"), json(8589934592ull));
  EXPECT_EQ(object.at("root"), json(3));
  EXPECT_EQ(object.at("time_us_p50"), json(100.125));
  EXPECT_EQ(object.at("confidence_pct"), json(99.0));
  EXPECT_EQ(object.at("in_place"), json(true));
  EXPECT_EQ(object.at("stop"), json("time_limit"));
  EXPECT_EQ(object.at("schema_version"), json(kSchemaVersion));
  EXPECT_EQ(row_to_json(ReportRow{}).at("root"), json(0));
}

// A sample file's run metadata: the origin's columns, as a row of the run holds them, and no
// other.
TEST(JsonRow, OriginIsTheRowsOriginColumns) {
  const ReportRow row = populated_row();
  const json origin = origin_to_json(row.origin);
  const json whole = row_to_json(row);
  const std::vector<std::string> names = {"host",         "gpu_name",     "driver",
                                          "cuda_runtime", "nccl_version", "collbench_version",
                                          "launch_mode",  "nodes"};
  EXPECT_EQ(origin.size(), names.size()) << origin.dump();
  for (const std::string& name : names) EXPECT_EQ(origin.at(name), whole.at(name)) << name;
  EXPECT_EQ(origin.at("nodes"), json(2));
}

TEST(JsonRow, MissingColumnIsNamed) {
  json object = row_to_json(populated_row());
  object.erase("busbw_gbps_lo");
  const std::string message = parse_error(object);
  EXPECT_NE(message.find("column 'busbw_gbps_lo' is missing"), std::string::npos) << message;
  EXPECT_NE(parse_error(json::array()).find("JSON object"), std::string::npos);
}

TEST(JsonRow, WrongTypesAreNamed) {
  const json object = row_to_json(populated_row());
  const std::vector<std::pair<std::string, json>> table = {
      {"time_us_p50", "100.125"},  // a string for a number
      {"busbw_gbps", true},
      {"ranks", 4.0},  // a float for an integer
      {"bytes", "1024"},
      {"in_place", 1},  // a number for a boolean
      {"op", 7},
      {"reason", nullptr},
  };
  for (const auto& [column, value] : table) {
    const std::string message = parse_error(with(object, column, value));
    EXPECT_NE(message.find("column '" + column + "': " + value.dump()), std::string::npos)
        << message;
  }
}

TEST(JsonRow, ValuesOutsideTheirDomainAreNamed) {
  const json object = row_to_json(populated_row());
  const std::vector<std::pair<std::string, json>> table = {
      {"op", "all_reduce_v2"},
      {"dtype", "float17"},
      {"stop", "bored"},
      {"timestamp", "yesterday"},
      {"count", -1},
      {"ranks", 0},
      {"root", -2},
      {"samples", -5},
      {"time_us_p50", -1.5},
      {"busbw_gbps", 1e13},
      {"confidence_pct", 100},
      {"schema_version", 1},
  };
  for (const auto& [column, value] : table) {
    const std::string message = parse_error(with(object, column, value));
    EXPECT_NE(message.find("column '" + column + "'"), std::string::npos)
        << column << ": " << message;
  }
}

}  // namespace
}  // namespace collbench::report
