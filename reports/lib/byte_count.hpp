// Byte counts as people type them ("8", "64K", "1M", "8G"; K = 1024), shared by every tool.
#pragma once

#include <cstdint>
#include <string_view>

namespace collbench::report {

// Parses a byte count with an optional K/M/G/T suffix (powers of 1024; "KB" and "KiB" too).
// Throws std::invalid_argument, one line naming `what` and the text, when it is empty, malformed
// or too large. Zero is accepted; callers that need a positive size check that themselves.
std::uint64_t parse_byte_count(std::string_view text, std::string_view what);

}  // namespace collbench::report
