// Parsing of byte counts with binary suffixes.
#include "reports/byte_count.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <stdexcept>
#include <string>

namespace collbench::report {

std::uint64_t parse_byte_count(std::string_view text, std::string_view what) {
  auto fail = [&](std::string_view why) {
    return std::invalid_argument(fmt::format("{} '{}' {}", what, text, why));
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) throw fail("is not a byte size (expected e.g. 8, 64K, 1M, 8G)");
  std::string suffix;
  for (char c : text.substr(digits))
    suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (!suffix.empty() && suffix != "B") {
    const std::size_t unit = std::string_view("KMGT").find(suffix[0]);
    const std::string rest = suffix.substr(1);
    if (unit == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
      throw fail("has an unknown suffix (expected K, M, G or T)");
    }
    shift = 10 * static_cast<int>(unit + 1);
  }
  std::uint64_t value = 0;
  for (char c : text.substr(0, digits)) {
    if (value > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) throw fail("is too large");
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift))
    throw fail("is too large");
  return value << shift;
}

}  // namespace collbench::report
