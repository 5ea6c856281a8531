// Where every binary's report rows go beside its own console table: the CSV report today; a new
// format (JSON, a database) is a new RowSink, and collbench and collbench_dpstep both get it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "reports/csv_writer.hpp"
#include "reports/report_row.hpp"

namespace collbench {

class RowSink {
 public:
  virtual ~RowSink() = default;
  // Writes (and flushes) one measured row.
  virtual void write(const report::ReportRow& row) = 0;
};

class CsvRowSink final : public RowSink {
 public:
  explicit CsvRowSink(const std::string& path) : writer_(path) {}
  void write(const report::ReportRow& row) override { writer_.write(row); }

 private:
  report::CsvWriter writer_;
};

// The files a run asked for, as sinks: `csv_path` ("" for none).
std::vector<std::unique_ptr<RowSink>> open_row_sinks(const std::string& csv_path);

}  // namespace collbench
