// Parsing and formatting of byte sizes.
#include "byte_size.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <limits>

#include "errors.hpp"

namespace collbench {

std::size_t parse_byte_size(std::string_view text, std::string_view what) {
  auto fail = [&](std::string_view why) -> std::size_t {
    throw UsageError(fmt::format("{} '{}' {}", what, text, why));
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return fail("is not a byte size (expected e.g. 8, 64K, 1M, 8G)");

  std::string suffix;
  for (char c : text.substr(digits)) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else {
    const std::string_view units = "KMGT";
    const std::size_t unit = units.find(suffix[0]);
    const std::string_view rest = std::string_view(suffix).substr(1);
    if (unit == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
      return fail("has an unknown suffix (expected K, M, G or T)");
    }
    shift = 10 * static_cast<int>(unit + 1);
  }

  std::uint64_t value = 0;
  for (char c : text.substr(0, digits)) {
    if (value > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return fail("is too large");
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value == 0) return fail("must be greater than zero");
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return fail("is too large");
  return static_cast<std::size_t>(value << shift);
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
  if (value == static_cast<double>(static_cast<std::uint64_t>(value))) return fmt::format("{:.0f} {}", value, kUnits[unit]);
  return fmt::format("{:.2f} {}", value, kUnits[unit]);
}

}  // namespace collbench
