// Formatting a workload line's location.
#include "workload/line_context.hpp"

#include <fmt/format.h>

#include "reports/printable.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {

std::string LineContext::location() const {
  const std::string line_place = fmt::format("{}:{}", report::printable(path), line);
  if (source_where.empty()) return line_place;
  const std::string source = report::printable(source_where);
  return source_first ? source : fmt::format("{} ({})", line_place, source);
}

void LineContext::fail(std::string_view what) const {
  throw_bad_input(location(), what);
}

}  // namespace collbench::replay
