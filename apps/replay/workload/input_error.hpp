// Bad input, in a source file or a workload: one line that starts with where it is (file:line or
// file:entry) and names the bad value, thrown as UsageError so that the command exits with 2.
#pragma once

#include <string>
#include <string_view>

namespace collbench::replay {

[[noreturn]] void throw_bad_input(std::string_view where, std::string_view what);

// A value from the input, safe and short enough to quote in that line.
std::string show_value(std::string_view value);

}  // namespace collbench::replay
