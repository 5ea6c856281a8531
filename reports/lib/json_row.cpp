// Report rows to and from JSON objects, column by column.
#include "json_row.hpp"

#include <fmt/format.h>

#include "schema.hpp"

namespace collbench::report {

using nlohmann::json;

json row_to_json(const ReportRow& row) {
  json object = json::object();
  for (const Column& column : kColumns) {
    const std::string text = column.format(row);
    switch (column.kind) {
      case ColumnKind::integer:
      case ColumnKind::real:
        // The CSV text is a plain decimal (3 decimals at most), so JSON reads it exactly.
        object[column.name] = json::parse(text);
        break;
      case ColumnKind::boolean:
        object[column.name] = text == "1";
        break;
      case ColumnKind::text:
        object[column.name] = text;
        break;
    }
  }
  return object;
}

ReportRow row_from_json(const json& object) {
  if (!object.is_object()) throw ColumnParseError("a row must be a JSON object");
  ReportRow row;
  for (const Column& column : kColumns) {
    const auto found = object.find(column.name);
    if (found == object.end()) throw ColumnParseError(fmt::format("column '{}' is missing", column.name));
    const json& value = *found;
    std::string text;
    switch (column.kind) {
      case ColumnKind::integer:
        if (!value.is_number_integer()) {
          throw ColumnParseError(fmt::format("column '{}': {} is not an integer", column.name, value.dump()));
        }
        text = value.dump();
        break;
      case ColumnKind::real:
        if (!value.is_number()) {
          throw ColumnParseError(fmt::format("column '{}': {} is not a number", column.name, value.dump()));
        }
        // Back to the CSV's plain decimal text, so the column's own parser and limits apply.
        text = value.is_number_float() ? fmt::format("{:.3f}", value.get<double>()) : value.dump();
        break;
      case ColumnKind::boolean:
        if (!value.is_boolean()) {
          throw ColumnParseError(fmt::format("column '{}': {} is not true or false", column.name, value.dump()));
        }
        text = value.get<bool>() ? "1" : "0";
        break;
      case ColumnKind::text:
        if (!value.is_string()) {
          throw ColumnParseError(fmt::format("column '{}': {} is not a string", column.name, value.dump()));
        }
        text = value.get<std::string>();
        break;
    }
    try {
      column.parse(row, text);
      column.check(row);
    } catch (const ColumnParseError& error) {
      throw ColumnParseError(fmt::format("column '{}': {}", column.name, error.what()));
    }
  }
  if (row.schema_version != kSchemaVersion) {
    throw ColumnParseError(fmt::format("column 'schema_version': {} is not {}", row.schema_version, kSchemaVersion));
  }
  return row;
}

}  // namespace collbench::report
