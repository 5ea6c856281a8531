// Byte sizes on the command line ("8", "64K", "1M", "8G"; K = 1024) and in human-readable text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace collbench {

// Parses a positive byte count with an optional K/M/G/T suffix (powers of 1024; "KB", "KiB" too).
// Throws UsageError naming `what` and the text when it is empty, zero, malformed or too large.
std::size_t parse_byte_size(std::string_view text, std::string_view what);

// "8 B", "64 KiB", "1.5 MiB", "8 GiB".
std::string format_byte_size(std::size_t bytes);

}  // namespace collbench
