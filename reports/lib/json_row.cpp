// Report rows to and from JSON objects, column by column.
#include "reports/json_row.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <optional>

#include "reports/schema.hpp"

namespace collbench::report {

using nlohmann::json;

namespace {

json column_value(const Column& column, const ReportRow& row) {
  const std::string text = column.format(row);
  switch (column.kind) {
    case ColumnKind::integer:
    case ColumnKind::real:
      // The CSV text is a plain decimal (3 decimals at most), so JSON reads it exactly.
      return json::parse(text);
    case ColumnKind::boolean:
      return text == "1";
    case ColumnKind::text:
      break;
  }
  return text;
}

// The columns of `row` that lie in `part` (all of them for nullopt).
json columns_to_json(const ReportRow& row, std::optional<RowPart> part) {
  json object = json::object();
  for (const Column& column : kColumns) {
    if (!part || column.part == *part) object[column.name] = column_value(column, row);
  }
  return object;
}

}  // namespace

json row_to_json(const ReportRow& row) {
  return columns_to_json(row, std::nullopt);
}

json origin_to_json(const RunOrigin& origin) {
  ReportRow row;
  row.origin = origin;
  return columns_to_json(row, RowPart::origin);
}

namespace {

// The row's schema_version: a version this tool reads, whose columns the object must hold.
int row_version(const json& object) {
  const auto found = object.find("schema_version");
  if (found == object.end()) throw ColumnParseError("column 'schema_version' is missing");
  const int newest = kSchemaVersion;
  if (!found->is_number_integer() || found->get<std::int64_t>() < kOldestReadableSchemaVersion ||
      found->get<std::int64_t>() > newest) {
    throw ColumnParseError(
        fmt::format("column 'schema_version': {} is not a version this tool reads ({} to {})",
                    found->dump(), kOldestReadableSchemaVersion, newest));
  }
  return found->get<int>();
}

// The column's CSV text from its JSON value, checked against the column's JSON type.
std::string column_text(const Column& column, const json& value) {
  switch (column.kind) {
    case ColumnKind::integer:
      if (!value.is_number_integer()) {
        throw ColumnParseError(
            fmt::format("column '{}': {} is not an integer", column.name, value.dump()));
      }
      return value.dump();
    case ColumnKind::real:
      if (!value.is_number()) {
        throw ColumnParseError(
            fmt::format("column '{}': {} is not a number", column.name, value.dump()));
      }
      // Back to the CSV's plain decimal text, so the column's own parser and limits apply.
      return value.is_number_float() ? fmt::format("{:.3f}", value.get<double>()) : value.dump();
    case ColumnKind::boolean:
      if (!value.is_boolean()) {
        throw ColumnParseError(
            fmt::format("column '{}': {} is not true or false", column.name, value.dump()));
      }
      return value.get<bool>() ? "1" : "0";
    case ColumnKind::text:
      if (!value.is_string()) {
        throw ColumnParseError(
            fmt::format("column '{}': {} is not a string", column.name, value.dump()));
      }
      return value.get<std::string>();
  }
  return {};
}

}  // namespace

ReportRow row_from_json(const json& object) {
  if (!object.is_object()) throw ColumnParseError("a row must be a JSON object");
  const int version = row_version(object);
  ReportRow row;
  for (const Column& column : kColumns) {
    const auto found = object.find(column.name);
    if (!in_version(column, version)) {
      // An older row keeps the defaults of later columns; holding one is a mix of versions.
      if (found == object.end()) continue;
      throw ColumnParseError(
          fmt::format("column 'schema_version': {}, but the row holds column '{}' of version {}",
                      version, column.name, column.since));
    }
    if (found == object.end()) {
      throw ColumnParseError(fmt::format("column '{}' is missing", column.name));
    }
    const std::string text = column_text(column, *found);
    try {
      column.parse(row, text);
      column.check(row);
    } catch (const ColumnParseError& error) {
      throw ColumnParseError(fmt::format("column '{}': {}", column.name, error.what()));
    }
  }
  return row;
}

}  // namespace collbench::report
