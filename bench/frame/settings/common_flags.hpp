// The flags the binaries share, each declared once here: a binary picks the ones it takes, with
// its default and, where it needs one, its meaning (its help, or a value it refuses beyond the
// flag's own rule). Their values go to CommonSettings, which the frame reads too: the launcher,
// the timeout that also bounds joining the processes of a launch, --list and --csv.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "frame/settings/setting.hpp"

namespace collbench {

// --gpus N beyond this is a typo, not a machine.
inline constexpr int kMaxGpuCount = 1024;

enum class CommonFlag {
  gpu_counts,  // -g,--gpus 2,4 | 1-4 | all: the GPU counts to sweep
  gpu_count,   // --gpus N: one GPU count, 0 for every visible GPU
  seed,        // --seed N: decimal or 0x hex, 64 bits
  timeout,     // --timeout S: seconds a unit of work may take
  csv,         // --csv FILE: report rows
  launcher,    // --launcher auto|single|mpi|env
  list,        // --list: what would run, without touching a GPU
};

// One flag a binary takes.
struct CommonFlagChoice {
  CommonFlag flag;
  std::string default_value;  // as typed; "" for the flag's own (none for most)
  std::string meaning;        // its help in this binary; "" for the flag's own
  // What this binary refuses beyond the flag's own rule, checked first: a narrower range names
  // itself in the error.
  Refusal refusal = {};
};
using CommonFlags = std::vector<CommonFlagChoice>;

// What the common flags gave; a binary that does not take a flag keeps its value here.
struct CommonSettings {
  std::string gpu_counts;  // -g as typed: "2,4", "1-4", "all" (parse_gpu_counts); "" for none
  int gpu_count = 0;       // --gpus N; 0: every visible GPU
  std::uint64_t seed = 0;
  double timeout_s = kMaxTimeoutS;
  std::string csv_path;             // "" for none
  std::string launcher = "single";  // without --launcher a binary runs as one process
  bool list = false;
  bool list_offered = false;  // the binary takes --list (a run without a GPU points to it)
};

// The settings of `flags`, in their order, for a binary's command line (CommandLine::add).
std::vector<Setting<CommonSettings>> common_settings(const CommonFlags& flags);

}  // namespace collbench
