// The column table of the CSV schema: names, formatting and parsing of every ReportRow field.
#include "reports/schema.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "reports/printable.hpp"

namespace collbench::report {
namespace {

template <typename Integer>
Integer parse_integer(const std::string& text) {
  Integer value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw ColumnParseError(fmt::format("'{}' is not an integer", printable(text)));
  }
  return value;
}

template <typename Integer>
void require_in_range(Integer value, Integer min, Integer max) {
  if (value < min || value > max) {
    throw ColumnParseError(
        fmt::format("'{}' is out of range (expected {} to {})", value, min, max));
  }
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Plain decimal notation as the writer produces it ("12.345"): no sign, exponent, hex, inf or
// nan, whose acceptance would let one hand edit (1e308, 0x10) masquerade as a measurement.
bool is_plain_decimal(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i == 0) return false;
  if (i == text.size()) return true;
  if (text[i] != '.' || i + 1 == text.size()) return false;
  for (++i; i < text.size(); ++i) {
    if (!is_digit(text[i])) return false;
  }
  return true;
}

double parse_measured_value(const std::string& text) {
  if (!is_plain_decimal(text)) {
    throw ColumnParseError(fmt::format(
        "'{}' is not a plain non-negative decimal number (like 12.345)", printable(text)));
  }
  // strtod reads the decimal point of the C locale, which the tools never change.
  const double value = std::strtod(text.c_str(), nullptr);
  if (!(value <= kMaxMeasuredValue)) {
    throw ColumnParseError(
        fmt::format("'{}' is larger than {:.0e}, the limit of any measured value", printable(text),
                    kMaxMeasuredValue));
  }
  return value;
}

bool parse_bool(const std::string& text) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  throw ColumnParseError(fmt::format("'{}' is not 0 or 1", printable(text)));
}

template <std::size_t N>
void require_one_of(const std::string& text, const std::array<const char*, N>& known) {
  std::string list;
  for (const char* name : known) {
    if (text == name) return;
    list += fmt::format("{}{}", list.empty() ? "" : ", ", name);
  }
  throw ColumnParseError(fmt::format("'{}' is not one of {}", printable(text), list));
}

void check_op(const std::string& text) {
  require_one_of(text, kKnownOps);
}
void check_dtype(const std::string& text) {
  require_one_of(text, kKnownDtypes);
}
void check_redop(const std::string& text) {
  require_one_of(text, kKnownRedops);
}
void check_launch_mode(const std::string& text) {
  require_one_of(text, kKnownLaunchModes);
}
void check_status(const std::string& text) {
  require_one_of(text, kKnownStatuses);
}
void check_stop(const std::string& text) {
  require_one_of(text, kKnownStops);
}

void check_algo(const std::string& text) {
  const bool identifier =
      !text.empty() && text.size() <= 64 &&
      text.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") == std::string::npos;
  if (!identifier) {
    throw ColumnParseError(
        fmt::format("'{}' is not an algorithm name (1 to 64 of a-z, 0-9, _, -)", printable(text)));
  }
}

bool is_leap_year(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : kDays[month - 1];
}

// ISO 8601 in UTC as the writer formats it: 2026-11-22T14:27:21Z (second 60 is a leap second).
bool is_utc_timestamp(const std::string& text) {
  static constexpr char kPattern[] = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != sizeof(kPattern) - 1) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (kPattern[i] == 'd' ? !is_digit(text[i]) : text[i] != kPattern[i]) return false;
  }
  auto number = [&text](std::size_t at, std::size_t digits) {
    return std::stoi(text.substr(at, digits));
  };
  const int year = number(0, 4), month = number(5, 2), day = number(8, 2);
  return month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month) &&
         number(11, 2) <= 23 && number(14, 2) <= 59 && number(17, 2) <= 60;
}

void check_timestamp(const std::string& text) {
  if (!is_utc_timestamp(text)) {
    throw ColumnParseError(
        fmt::format("'{}' is not an ISO 8601 UTC time like 2026-11-22T14:27:21Z", printable(text)));
  }
}

void any_text(const std::string&) {}

std::string format_double(double value) {
  return fmt::format("{:.3f}", value);
}

// The class and type of the field a member pointer names.
template <typename>
struct MemberOf;
template <typename Part, typename Value>
struct MemberOf<Value Part::*> {
  using part = Part;
  using value = Value;
};

// The field `Field` names in `row`: a member of the row itself, of its origin or of its times.
template <auto Field, typename Row>  // Row: ReportRow or const ReportRow
auto& field_of(Row& row) {
  using Part = typename MemberOf<decltype(Field)>::part;
  if constexpr (std::is_same_v<Part, RunOrigin>) {
    return row.origin.*Field;
  } else if constexpr (std::is_same_v<Part, TimeStats>) {
    return row.time.*Field;
  } else {
    return row.*Field;
  }
}

template <auto Field>
constexpr RowPart part_of() {
  using Part = typename MemberOf<decltype(Field)>::part;
  if constexpr (std::is_same_v<Part, RunOrigin>) return RowPart::origin;
  if constexpr (std::is_same_v<Part, TimeStats>) return RowPart::time;
  return RowPart::row;
}

// Column makers: the member pointer names the field once (and so the part of the row it is in);
// the lambdas capture nothing, so they decay to the plain function pointers that Column holds.
template <auto Field, void (*Check)(const std::string&) = any_text>
Column text_column(const char* name, int since = 1) {
  return {name,
          [](const ReportRow& r) { return field_of<Field>(r); },
          [](ReportRow& r, const std::string& t) { field_of<Field>(r) = t; },
          [](const ReportRow& r) { Check(field_of<Field>(r)); },
          since,
          ColumnKind::text,
          part_of<Field>()};
}

// Integers within [Min, Max]; the limits are far beyond any real run and exist so that a
// negative or absurd count is caught where it is read, not in some later computation.
template <auto Field, auto Min, auto Max>
Column integer_column(const char* name, int since = 1) {
  using Integer = typename MemberOf<decltype(Field)>::value;
  return {
      name,
      [](const ReportRow& r) { return std::to_string(field_of<Field>(r)); },
      [](ReportRow& r, const std::string& t) { field_of<Field>(r) = parse_integer<Integer>(t); },
      [](const ReportRow& r) { require_in_range<Integer>(field_of<Field>(r), Min, Max); },
      since,
      ColumnKind::integer,
      part_of<Field>()};
}

void any_value(const ReportRow&) {}

template <auto Field, void (*Check)(const ReportRow&) = any_value>
Column real_column(const char* name, int since = 1) {
  return {name,
          [](const ReportRow& r) { return format_double(field_of<Field>(r)); },
          [](ReportRow& r, const std::string& t) { field_of<Field>(r) = parse_measured_value(t); },
          Check,
          since,
          ColumnKind::real,
          part_of<Field>()};
}

// A confidence level in percent: 0 (no interval) or above 0 and below 100.
void check_confidence(const ReportRow& r) {
  const double level = r.time.confidence_pct;
  if (level != 0 && !(level > 0 && level < 100)) {
    throw ColumnParseError(
        fmt::format("'{}' is not 0 (no interval) or a level between 0 and 100", level));
  }
}

template <auto Field>
Column bool_column(const char* name) {
  return {name,
          [](const ReportRow& r) { return std::string(field_of<Field>(r) ? "1" : "0"); },
          [](ReportRow& r, const std::string& t) { field_of<Field>(r) = parse_bool(t); },
          any_value,
          1,
          ColumnKind::boolean,
          part_of<Field>()};
}

constexpr int kIntMax = std::numeric_limits<int>::max();
constexpr int kMaxIterations = 1'000'000'000;
constexpr int kMaxRanks = 1 << 20;
// 1 PiB: a buffer size (or element count) beyond any GPU memory for a long time to come.
constexpr std::uint64_t kMaxBufferBytes = std::uint64_t{1} << 50;
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

}  // namespace

const std::array<Column, kColumnCount> kColumns = {{
    // Any integer: a version other than ours gets its own message (csv_reader.cpp). Rows are
    // always written in the current version, whatever version they were read from.
    Column{"schema_version", [](const ReportRow&) { return std::to_string(kSchemaVersion); },
           [](ReportRow& r, const std::string& t) { r.schema_version = parse_integer<int>(t); },
           any_value, 1, ColumnKind::integer},
    text_column<&ReportRow::timestamp, check_timestamp>("timestamp"),
    text_column<&RunOrigin::host>("host"),
    text_column<&RunOrigin::gpu_name>("gpu_name"),
    text_column<&RunOrigin::driver>("driver"),
    text_column<&RunOrigin::cuda_runtime>("cuda_runtime"),
    text_column<&RunOrigin::nccl_version>("nccl_version"),
    text_column<&RunOrigin::collbench_version>("collbench_version"),
    text_column<&RunOrigin::launch_mode, check_launch_mode>("launch_mode"),
    integer_column<&RunOrigin::nodes, 1, kMaxRanks>("nodes"),
    text_column<&ReportRow::op, check_op>("op"),
    text_column<&ReportRow::algo, check_algo>("algo"),
    integer_column<&ReportRow::ranks, 1, kMaxRanks>("ranks"),
    text_column<&ReportRow::dtype, check_dtype>("dtype"),
    text_column<&ReportRow::redop, check_redop>("redop"),
    integer_column<&ReportRow::root, -1, kMaxRanks - 1>("root"),  // -1: the op has no root
    bool_column<&ReportRow::in_place>("in_place"),
    integer_column<&ReportRow::bytes, std::uint64_t{0}, kMaxBufferBytes>("bytes"),
    integer_column<&ReportRow::count, std::uint64_t{0}, kMaxBufferBytes>("count"),
    integer_column<&ReportRow::warmup, 0, kMaxIterations>("warmup"),
    integer_column<&ReportRow::iters, 0, kMaxIterations>("iters"),
    integer_column<&ReportRow::agg_iters, 1, kMaxIterations>("agg_iters"),
    integer_column<&ReportRow::graph, 0, kMaxIterations>("graph"),
    integer_column<&ReportRow::repeat, 0, kMaxIterations>("repeat", 2),
    text_column<&ReportRow::config>("config"),
    integer_column<&TimeStats::samples, 0, kIntMax>("samples", 2),
    text_column<&ReportRow::stop, check_stop>("stop", 2),
    real_column<&TimeStats::confidence_pct, check_confidence>("confidence_pct", 2),
    real_column<&TimeStats::mean_us>("time_us_mean"),
    real_column<&TimeStats::min_us>("time_us_min"),
    real_column<&TimeStats::p50_us>("time_us_p50"),
    real_column<&TimeStats::p99_us>("time_us_p99"),
    real_column<&TimeStats::max_us>("time_us_max"),
    real_column<&TimeStats::stdev_us>("time_us_stdev", 2),
    real_column<&TimeStats::cv_pct>("time_cv_pct", 2),
    real_column<&TimeStats::p50_lo_us>("time_us_p50_lo", 2),
    real_column<&TimeStats::p50_hi_us>("time_us_p50_hi", 2),
    real_column<&TimeStats::mean_lo_us>("time_us_mean_lo", 3),
    real_column<&TimeStats::mean_hi_us>("time_us_mean_hi", 3),
    real_column<&ReportRow::algbw_gbps>("algbw_gbps"),
    real_column<&ReportRow::busbw_gbps>("busbw_gbps"),
    real_column<&ReportRow::busbw_gbps_lo>("busbw_gbps_lo", 2),
    real_column<&ReportRow::busbw_gbps_hi>("busbw_gbps_hi", 2),
    real_column<&ReportRow::peak_fraction>("peak_fraction"),
    integer_column<&ReportRow::wrong_elements, std::uint64_t{0}, kU64Max>("wrong_elements"),
    text_column<&ReportRow::status, check_status>("status"),
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
