// The collreport command line, built from the table of subcommands (subcommands.hpp), and its
// exit statuses.
#pragma once

#include <ostream>

namespace collbench::collreport {

inline constexpr int kExitOk = 0;
// compare: a regression or a failed row in NEW; ranks: a late rank; beside: a row outside.
inline constexpr int kExitRegression = 1;
inline constexpr int kExitBadInput = 2;  // unreadable or invalid report, bad option

// Runs collreport as `main` would, writing results to `out` and errors to `err`.
int run_collreport(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace collbench::collreport
