// The CSV schema: every column's name, how it is written and how it is read back, in one table.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "reports/report_row.hpp"

namespace collbench::report {

// The values the reader accepts in the enumerated columns. Ops: the collectives of the registry
// (bench/core/collective_registry.cpp; tests/reports/lib/schema_ops_test.cpp holds the two lists
// equal), and the ops that apps measure beside them, each written by one app.
inline constexpr std::array<const char*, 10> kCollectiveOps = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
    "alltoall",   "gather",     "scatter",        "sendrecv",  "alltoallv"};
inline constexpr const char* kDpStepOp = "dp_step";     // a data-parallel training step
inline constexpr const char* kLinkPeakOp = "p2p_peak";  // a copy between two GPUs at peak
// A replayed job's whole window of communication, per iteration.
inline constexpr const char* kReplayWindowOp = "replay_window";

struct AppOp {
  const char* op;
  const char* app;  // the binary that writes rows of the op
};
inline constexpr std::array<AppOp, 3> kAppOps = {{
    {kDpStepOp, "collbench_dpstep"},
    {kLinkPeakOp, "collbench_linkpeak"},
    {kReplayWindowOp, "collbench_replay"},
}};

// Every op a row may name: the collectives, then the apps' ops.
inline constexpr std::array<const char*, kCollectiveOps.size() + kAppOps.size()> kKnownOps = [] {
  std::array<const char*, kCollectiveOps.size() + kAppOps.size()> ops{};
  std::size_t i = 0;
  for (const char* op : kCollectiveOps) ops[i++] = op;
  for (const AppOp& app_op : kAppOps) ops[i++] = app_op.op;
  return ops;
}();

// bench/core/data_type.cpp's names.
inline constexpr std::array<const char*, 10> kKnownDtypes = {
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"};
// "none" is what the writer puts in the column for ops that do not reduce.
inline constexpr std::array<const char*, 6> kKnownRedops = {"sum", "prod", "max",
                                                            "min", "avg",  "none"};
inline constexpr std::array<const char*, 3> kKnownLaunchModes = {"single_process", "mpi", "env"};
inline constexpr std::array<const char*, 5> kKnownStatuses = {kStatusOk, kStatusSkipped, kStatusOom,
                                                              kStatusError, kStatusTimeout};
inline constexpr std::array<const char*, 3> kKnownStops = {kStopFixed, kStopConverged,
                                                           kStopTimeLimit};
// Times (us), bandwidths (GB/s) and peak fractions above this are hand edits or corruption
// (10^12 us is eleven days), and would overflow the arithmetic of compare and summary.
inline constexpr double kMaxMeasuredValue = 1e12;

// What a column holds, for formats with types (JSON): its text is always the CSV text.
enum class ColumnKind { text, integer, real, boolean };
// Which part of a row holds the column's field: the row itself, its origin or its times.
enum class RowPart { row, origin, time };

struct Column {
  const char* name;
  std::string (*format)(const ReportRow& row);
  // Throws ColumnParseError when `text` is not of the column's type (an integer, a plain decimal
  // number up to kMaxMeasuredValue, 0/1).
  void (*parse)(ReportRow& row, const std::string& text);
  // Throws ColumnParseError when the row's value lies outside the column's domain (a known op, a
  // positive rank count, ...). Apart from parse so that any row, even a default one, can be
  // formatted and parsed back; the reader applies both.
  void (*check)(const ReportRow& row);
  // The schema version that added the column: a report of an older version lacks it, and its rows
  // keep the field's default.
  int since = 1;
  ColumnKind kind = ColumnKind::text;
  RowPart part = RowPart::row;
};

inline constexpr std::size_t kColumnCount = 48;
extern const std::array<Column, kColumnCount> kColumns;

class ColumnParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The header line's column names, comma separated, in schema order (the current version).
std::string header_line();
// Whether `column` is part of reports of schema version `version`.
inline bool in_version(const Column& column, int version) {
  return column.since <= version;
}
// Index of a column by name, or kColumnCount when there is none.
std::size_t column_index(std::string_view name);

}  // namespace collbench::report
