// The columns of one replayed op, declared once: the CSV's header and rows and the JSON's op
// objects are both made from this table (name, and the value as JSON: a number, a text, or null
// where the op has none, an empty CSV field).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "plan/replay_figures.hpp"

namespace collbench::replay {

// One op of one rank with its figures.
struct ReplayedOp {
  const WorkloadOps& workload;
  const WorkloadOp& op;
  const OpFigures& figures;
  std::string_view config = {};  // the combination's (ReplayCombination::config), "" at defaults
};

struct OpColumn {
  const char* name;
  nlohmann::json (*value)(const ReplayedOp& replayed);
};

const std::vector<OpColumn>& op_columns();

// The op's columns as one JSON object.
nlohmann::json op_json(const ReplayedOp& replayed);

}  // namespace collbench::replay
