// The report-row sinks a run's output options ask for.
#include "output/row_sinks.hpp"

namespace collbench {

std::vector<std::unique_ptr<RowSink>> open_row_sinks(const std::string& csv_path) {
  std::vector<std::unique_ptr<RowSink>> sinks;
  if (!csv_path.empty()) sinks.push_back(std::make_unique<CsvRowSink>(csv_path));
  return sinks;
}

}  // namespace collbench
