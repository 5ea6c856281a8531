// What `collreport summary` prints: where the rows were measured, the table of curves and, for a
// report measured in several passes, the widest spreads between them; as text or Markdown.
#pragma once

#include <string>

#include "reports/csv_reader.hpp"

namespace collbench::collreport {

std::string summary_text(const report::Report& report);
std::string summary_markdown(const report::Report& report);

}  // namespace collbench::collreport
