// The diagnosis for a person at a terminal: each GPU, the pair matrices, the collectives, the
// arrivals, then the figures cleared on recheck and the verdict, one line per suspect, or the
// margins of a clean run.
#pragma once

#include <string>

#include "verdict/figures.hpp"
#include "verdict/verdict.hpp"

namespace collbench::diagnose {

std::string console_summary(const Measurements& measurements, const Verdict& verdict);

}  // namespace collbench::diagnose
