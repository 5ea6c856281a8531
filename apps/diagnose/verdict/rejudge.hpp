// collbench_diagnose --from FILE: the measurements of a saved diagnosis (--json) judged again, with
// this command line's thresholds (and --link-peak, when given), on any machine (no GPU): what a
// verdict would have been with other thresholds, or with this collbench's rules.
#pragma once

#include <string>

#include "diagnose_options.hpp"

namespace collbench::diagnose {

// Prints the console summary of the re-judged diagnosis, writes it as JSON to options.json_path
// when given (keeping the saved file's injected fault, wall time and a top-level "truth"), and
// returns the verdict's exit status; 2 with one line on stderr for an unreadable file.
int rejudge(const std::string& path, const DiagnoseOptions& options);

}  // namespace collbench::diagnose
