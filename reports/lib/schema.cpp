// The column table of the CSV schema: names, formatting and parsing of every ReportRow field.
#include "schema.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <type_traits>

namespace collbench::report {
namespace {

template <typename Integer>
Integer parse_integer(const std::string& text) {
  Integer value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw ColumnParseError(fmt::format("'{}' is not an integer", text));
  }
  return value;
}

double parse_double(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !std::isfinite(value)) {
    throw ColumnParseError(fmt::format("'{}' is not a finite number", text));
  }
  return value;
}

bool parse_bool(const std::string& text) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  throw ColumnParseError(fmt::format("'{}' is not 0 or 1", text));
}

std::string format_double(double value) { return fmt::format("{:.3f}", value); }

// Column makers: the member pointer names the field once; the lambdas capture nothing, so they
// decay to the plain function pointers that Column holds.
template <auto Field>
Column text_column(const char* name) {
  return {name, [](const ReportRow& r) { return r.*Field; },
          [](ReportRow& r, const std::string& t) { r.*Field = t; }};
}

template <auto Field>
Column integer_column(const char* name) {
  return {name, [](const ReportRow& r) { return std::to_string(r.*Field); },
          [](ReportRow& r, const std::string& t) {
            using Integer = std::decay_t<decltype(r.*Field)>;
            r.*Field = parse_integer<Integer>(t);
          }};
}

template <auto Field>
Column real_column(const char* name) {
  return {name, [](const ReportRow& r) { return format_double(r.*Field); },
          [](ReportRow& r, const std::string& t) { r.*Field = parse_double(t); }};
}

template <auto Field>
Column bool_column(const char* name) {
  return {name, [](const ReportRow& r) { return std::string(r.*Field ? "1" : "0"); },
          [](ReportRow& r, const std::string& t) { r.*Field = parse_bool(t); }};
}

}  // namespace

const std::array<Column, kColumnCount> kColumns = {{
    integer_column<&ReportRow::schema_version>("schema_version"),
    text_column<&ReportRow::timestamp>("timestamp"),
    text_column<&ReportRow::host>("host"),
    text_column<&ReportRow::gpu_name>("gpu_name"),
    text_column<&ReportRow::driver>("driver"),
    text_column<&ReportRow::cuda_runtime>("cuda_runtime"),
    text_column<&ReportRow::nccl_version>("nccl_version"),
    text_column<&ReportRow::collbench_version>("collbench_version"),
    text_column<&ReportRow::launch_mode>("launch_mode"),
    integer_column<&ReportRow::nodes>("nodes"),
    text_column<&ReportRow::op>("op"),
    text_column<&ReportRow::algo>("algo"),
    integer_column<&ReportRow::ranks>("ranks"),
    text_column<&ReportRow::dtype>("dtype"),
    text_column<&ReportRow::redop>("redop"),
    integer_column<&ReportRow::root>("root"),
    bool_column<&ReportRow::in_place>("in_place"),
    integer_column<&ReportRow::bytes>("bytes"),
    integer_column<&ReportRow::count>("count"),
    integer_column<&ReportRow::warmup>("warmup"),
    integer_column<&ReportRow::iters>("iters"),
    integer_column<&ReportRow::agg_iters>("agg_iters"),
    integer_column<&ReportRow::graph>("graph"),
    text_column<&ReportRow::config>("config"),
    real_column<&ReportRow::time_us_mean>("time_us_mean"),
    real_column<&ReportRow::time_us_min>("time_us_min"),
    real_column<&ReportRow::time_us_p50>("time_us_p50"),
    real_column<&ReportRow::time_us_p99>("time_us_p99"),
    real_column<&ReportRow::time_us_max>("time_us_max"),
    real_column<&ReportRow::algbw_gbps>("algbw_gbps"),
    real_column<&ReportRow::busbw_gbps>("busbw_gbps"),
    real_column<&ReportRow::peak_fraction>("peak_fraction"),
    integer_column<&ReportRow::wrong_elements>("wrong_elements"),
    text_column<&ReportRow::status>("status"),
    text_column<&ReportRow::reason>("reason"),
    text_column<&ReportRow::extra>("extra"),
}};

std::string header_line() {
  std::string line;
  for (const Column& column : kColumns) {
    if (!line.empty()) line += ',';
    line += column.name;
  }
  return line;
}

std::size_t column_index(std::string_view name) {
  for (std::size_t i = 0; i < kColumns.size(); ++i) {
    if (name == kColumns[i].name) return i;
  }
  return kColumnCount;
}

}  // namespace collbench::report
