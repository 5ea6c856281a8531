// A report row as a JSON object keyed by the schema's column names, numbers as numbers: how the
// JSON sample files (collbench --json) carry each case's row, read back through the same column
// parsers and checks as the CSV.
#pragma once

#include <nlohmann/json.hpp>

#include "reports/report_row.hpp"

namespace collbench::report {

nlohmann::json row_to_json(const ReportRow& row);
// The origin's columns alone (host, gpu_name, ..., nodes), typed as in a row: a sample file's run
// metadata.
nlohmann::json origin_to_json(const RunOrigin& origin);
// Throws ColumnParseError naming the column when a value is missing, of the wrong JSON type, or
// outside the column's domain. The row is read as its schema_version says (any this tool reads,
// as the CSV reader does): an older row lacks the later columns and keeps their defaults.
ReportRow row_from_json(const nlohmann::json& object);

}  // namespace collbench::report
