// The diagnosis for a person at a terminal: each GPU, the pair matrix, the collectives, then the
// verdict, one line per suspect.
#pragma once

#include <string>

#include "figures.hpp"
#include "verdict.hpp"

namespace collbench::diagnose {

std::string console_summary(const Measurements& measurements, const Verdict& verdict);

}  // namespace collbench::diagnose
