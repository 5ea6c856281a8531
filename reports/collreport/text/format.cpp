// Number formatting and parsing for collreport.
#include "text/format.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "reports/byte_count.hpp"
#include "reports/printable.hpp"

namespace collbench::collreport {

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  std::string number = fmt::format("{:.2f}", value);
  // "1.50" -> "1.5", "64.00" -> "64": sizes in sweeps are mostly whole powers of two.
  number.erase(number.find_last_not_of('0') + 1);
  if (number.back() == '.') number.pop_back();
  return fmt::format("{} {}", number, kUnits[unit]);
}

std::string format_gbps(double gbps) {
  if (gbps >= 100.0) return fmt::format("{:.1f}", gbps);
  if (gbps >= 1.0) return fmt::format("{:.2f}", gbps);
  return fmt::format("{:.3f}", gbps);
}

std::string format_us(double us) {
  if (us >= 1000.0) return fmt::format("{:.1f}", us);
  return fmt::format("{:.2f}", us);
}

std::string format_change(double fraction) {
  return fmt::format("{:+.1f}%", 100.0 * fraction);
}

std::string format_change_range(double lo_fraction, double hi_fraction) {
  return fmt::format("[{}, {}]", format_change(lo_fraction), format_change(hi_fraction));
}

std::string format_percent(double fraction) {
  std::string number = fmt::format("{:.2f}", 100.0 * fraction);
  number.erase(number.find_last_not_of('0') + 1);
  if (number.back() == '.') number.pop_back();
  return number + "%";
}

std::uint64_t parse_bytes(std::string_view text, std::string_view what) {
  return report::parse_byte_count(text, what);
}

double parse_percent(std::string_view text, std::string_view what) {
  std::string number(text);
  if (!number.empty() && number.back() == '%') number.pop_back();
  std::size_t used = 0;
  double percent = 0;
  try {
    percent = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (number.empty() || used != number.size() || !std::isfinite(percent) || percent <= 0 ||
      percent >= 100) {
    throw std::invalid_argument(
        fmt::format("{} '{}' is not a percentage between 0 and 100 (e.g. 5 or 5%)", what, text));
  }
  return percent / 100.0;
}

double parse_share(std::string_view text, std::string_view what) {
  const std::string number(text);
  std::size_t used = 0;
  double share = 0;
  try {
    share = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (number.empty() || used != number.size() || !std::isfinite(share) || share <= 0 || share > 1) {
    throw std::invalid_argument(
        fmt::format("{} '{}' is not a share above 0 and at most 1 (e.g. 0.25)", what,
                    report::printable(number, 40)));
  }
  return share;
}

}  // namespace collbench::collreport
