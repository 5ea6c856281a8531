// The ground truth of one collbench_contend run: what fault it made, on which ranks and GPUs, as
// the JSON a verdict is checked against (ci/verdict_check.py).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "contend_options.hpp"

namespace collbench::contend {

struct Truth {
  std::string fault;                     // "sm_load", "link_load" or "cpu_starve"
  std::vector<int> ranks;                // collbench ranks affected, taking GPU index == rank
  std::vector<int> gpus;                 // GPUs loaded (none for cpu_starve)
  std::optional<std::string> direction;  // link_load: "0->1" or "0<->1"
  std::string detail;                    // what runs, in words; filled in once it runs
};

// The truth the options describe, detail still empty.
Truth truth_for(const ContendOptions& options);

// {"truth": {"fault": ..., "ranks": [...], "gpus": [...], "direction": ... | null, "detail": ...}}
nlohmann::json truth_json(const Truth& truth);

// Writes truth_json to `path` (replacing it through a temporary, so that a reader never sees half
// a file); throws LoadError naming the path when it cannot.
void write_truth(const Truth& truth, const std::string& path);

}  // namespace collbench::contend
