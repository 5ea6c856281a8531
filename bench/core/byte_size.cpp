// Parsing and formatting of byte sizes.
#include "core/byte_size.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>

#include "core/errors.hpp"
#include "reports/byte_count.hpp"

namespace collbench {

std::size_t parse_byte_size(std::string_view text, std::string_view what) {
  std::uint64_t bytes = 0;
  try {
    bytes = report::parse_byte_count(text, what);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  if (bytes == 0) throw UsageError(fmt::format("{} '{}' must be greater than zero", what, text));
  return static_cast<std::size_t>(bytes);
}

std::string format_byte_size(std::size_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  if (value == static_cast<double>(static_cast<std::uint64_t>(value)))
    return fmt::format("{:.0f} {}", value, kUnits[unit]);
  return fmt::format("{:.2f} {}", value, kUnits[unit]);
}

}  // namespace collbench
