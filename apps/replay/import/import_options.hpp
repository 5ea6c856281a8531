// What the user may tell an importer.
#pragma once

#include <optional>

#include "core/data_type.hpp"

namespace collbench::replay {

struct ImportOptions {
  // The reduction of every reducing op, for sources that record none (Kineto, Flight Recorder).
  std::optional<ReduceOp> redop;
};

}  // namespace collbench::replay
