// How figures read in evidence lines and on the console, so both say the same thing.
#pragma once

#include <string>
#include <vector>

namespace collbench::diagnose {

// "0.54×"
std::string ratio_text(double ratio);
// "5.1 spreads"
std::string spreads_text(double spreads);
// "0,1,2"
std::string rank_list(const std::vector<int>& ranks);

}  // namespace collbench::diagnose
