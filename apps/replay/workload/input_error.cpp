// One-line errors for bad input.
#include "workload/input_error.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "reports/printable.hpp"

namespace collbench::replay {

void throw_bad_input(std::string_view where, std::string_view what) {
  throw UsageError(fmt::format("{}: {}", where, what));
}

std::string show_value(std::string_view value) {
  return "'" + report::printable(value) + "'";
}

}  // namespace collbench::replay
