// Number formatting for collreport's tables: human-readable sizes, bandwidths, times, changes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace collbench::collreport {

// "8 B", "64 KiB", "1.5 MiB", "1 GiB".
std::string format_bytes(std::uint64_t bytes);
// Bandwidth in GB/s with precision that suits its magnitude: "361.2", "12.34", "0.004".
std::string format_gbps(double gbps);
// A time in microseconds: "23.41", "1520.3".
std::string format_us(double us);
// A relative change as a signed percentage: "+3.2%", "-10.0%".
std::string format_change(double fraction);
// The range of a change: "[-1.2%, +8.9%]".
std::string format_change_range(double lo_fraction, double hi_fraction);
// A fraction as a percentage: "5%", "12.5%".
std::string format_percent(double fraction);

// Parses "1048576", "64K", "1M", "1MiB", "8G" (powers of 1024); throws std::invalid_argument
// naming `what` and the text.
std::uint64_t parse_bytes(std::string_view text, std::string_view what);
// Parses a percentage, "5" or "5%", into a fraction (0.05); throws std::invalid_argument naming
// `what` unless it lies in (0, 100).
double parse_percent(std::string_view text, std::string_view what);
// Parses a share, "0.25", into a fraction; throws std::invalid_argument naming `what` unless it
// lies in (0, 1].
double parse_share(std::string_view text, std::string_view what);

}  // namespace collbench::collreport
