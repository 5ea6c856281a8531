// How the communicators of a case are made: NCCL's algorithm and protocol (NCCL_ALGO,
// NCCL_PROTO), its CTA limit (ncclConfig_t::maxCTAs) and an NCCL_TESTS_SPLIT rule that splits the
// ranks of a GPU count into concurrent groups; and the swept axes of those settings with buffer
// registration (--nccl-algo, --nccl-proto, --nccl-max-ctas, --register), which collbench and
// collbench_replay share. Pure data: parsing, the config text, the key, the combinations.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/buffer_registration.hpp"
#include "core/split_rule.hpp"

namespace collbench {

struct CommunicatorSettings {
  std::string nccl_algo;   // NCCL's spelling ("Ring"); empty: NCCL chooses (and NCCL_ALGO applies)
  std::string nccl_proto;  // "LL", "LL128" or "Simple"; empty: NCCL chooses
  int nccl_max_ctas = 0;   // ncclConfig_t::maxCTAs; 0: NCCL's own limit
  std::optional<SplitRule> split;

  // Whether NCCL_ALGO or NCCL_PROTO is set for these communicators.
  bool restricts_nccl_choice() const { return !nccl_algo.empty() || !nccl_proto.empty(); }
  // Whether any ncclConfig_t field differs from NCCL's defaults.
  bool has_nccl_config() const { return nccl_max_ctas > 0; }
  // Whether communicators are made exactly as without settings.
  bool is_default() const { return !restricts_nccl_choice() && !has_nccl_config() && !split; }
};

// The values NCCL accepts, spelled as NCCL spells them (src/init.cc: ncclAlgoStr, ncclProtoStr).
const std::vector<std::string>& nccl_algorithm_names();
const std::vector<std::string>& nccl_protocol_names();
// ncclConfig_t::maxCTAs above this is capped by NCCL (MAXCHANNELS in src/include/device.h).
inline constexpr int kMaxNcclCtas = 64;

// Comma-separated lists, each entry a name from `nccl_*_names()` in any case, or "default"
// (written as an empty string). Canonical spellings, repeats dropped. Throws UsageError naming
// the option, the bad entry and the allowed values.
std::vector<std::string> parse_nccl_algo_list(const std::string& text);
std::vector<std::string> parse_nccl_proto_list(const std::string& text);
// "8,16,default": CTA limits from 1 to kMaxNcclCtas, or default (0).
std::vector<int> parse_nccl_max_ctas_list(const std::string& text);

// The swept values of each axis, in the order given; "" and 0 are NCCL's own choice (after
// apply_environment_defaults: what the user's environment sets).
struct CommunicatorAxes {
  std::vector<std::string> nccl_algos = {""};
  std::vector<std::string> nccl_protos = {""};
  std::vector<int> nccl_max_ctas = {0};
  std::vector<BufferRegistration> registrations = {BufferRegistration::none};
};

// Every combination of the NCCL axes (algorithm, then protocol, then CTA limit varying fastest),
// each with `split`.
std::vector<CommunicatorSettings> nccl_combinations(const CommunicatorAxes& axes,
                                                    const std::optional<SplitRule>& split);

// The user's NCCL_ALGO, NCCL_PROTO and NCCL_MAX_CTAS (nullopt: not set).
struct NcclEnvironment {
  std::optional<std::string> algo, proto, max_ctas;
};
// This process's NCCL_ALGO, NCCL_PROTO and NCCL_MAX_CTAS.
NcclEnvironment read_nccl_environment();
// Makes the "default" entries ("" and 0) of the axes what the user's environment sets, so that a
// row names what NCCL runs and `NCCL_ALGO=Ring` gives the rows `--nccl-algo Ring` gives. A value
// that is one name (in any case) is written as NCCL spells it, any other (a list, "^NVLS") as it
// is; an empty variable counts as unset. Repeats are dropped. Throws UsageError naming
// NCCL_MAX_CTAS when it is not a CTA count from 1 to kMaxNcclCtas.
void apply_environment_defaults(const NcclEnvironment& environment, std::vector<std::string>& algos,
                                std::vector<std::string>& protos, std::vector<int>& max_ctas);

// The same, on every NCCL axis of `axes`.
void apply_environment_defaults(const NcclEnvironment& environment, CommunicatorAxes& axes);

// What a run at NCCL's defaults runs under `environment`, in the config column's form, as
// collbench writes it for its "default" entries ("nccl_algo=Ring;nccl_max_ctas=8"; empty when no
// variable is set). Throws UsageError as apply_environment_defaults does.
std::string environment_nccl_config(const NcclEnvironment& environment);

// The groups `settings.split` makes of `ranks` GPUs (one group of all when there is no rule).
std::vector<std::vector<int>> communicator_groups(const CommunicatorSettings& settings, int ranks);
// "0,2 | 1": the groups, for messages.
std::string describe_groups(const std::vector<std::vector<int>>& groups);

// The non-default parts for `ranks` GPUs, in the CSV config column's form:
// "nccl_algo=Ring;nccl_proto=LL;nccl_max_ctas=8;split=MOD 2;groups=2" (a ';' inside an
// environment's value written '|'). Empty at the defaults.
// Equal texts make equal communicators, so it is also the runner's key for them.
std::string communicator_config(const CommunicatorSettings& settings, int ranks);

}  // namespace collbench
