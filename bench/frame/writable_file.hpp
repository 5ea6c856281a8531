// Output files checked before anything runs: a typo in a directory is bad input, not an error
// after the sweep.
#pragma once

#include <string>

namespace collbench {

// Throws UsageError naming `option` and `path` unless `path` can be written without creating it
// now: an existing file must be writable, a new one needs a writable directory.
void check_writable(const std::string& option, const std::string& path);

}  // namespace collbench
