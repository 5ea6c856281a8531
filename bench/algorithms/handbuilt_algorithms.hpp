// The hand-built all-reduce algorithms (kernels/README.md) as implementations of all_reduce: what
// they have in common. Each declares itself once, at the end of its own file, as a
// HandbuiltDescriptor: name, summary, settings (bound to the fields of its own tuning struct,
// declared in its own header: handbuilt_ring.hpp ...) and maker.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "algorithms/tuning_settings.hpp"
#include "core/algorithm.hpp"
#include "core/algorithm_settings.hpp"

namespace collbench {

// The hand-built algorithms: each overrides CollectiveAlgorithm::request_abort (kernels waiting
// on a peer return within microseconds; the next prepare() resets the flags so the algorithm can
// run again) and check_health (throws when a kernel gave up: abort requested, or a peer silent
// past its tuning's peer timeout).
class HandbuiltAlgorithm : public CollectiveAlgorithm {};

// Makes the algorithm for `ranks` with `values` (of its descriptor's settings) applied to its
// tuning's defaults; throws UsageError when they cannot run together.
using HandbuiltMaker = std::function<std::unique_ptr<HandbuiltAlgorithm>(
    const std::vector<RankContext>& ranks, const SettingValues& values)>;

// The maker of an algorithm whose tuning `settings` set: `make(ranks, tuning)`.
template <typename Tuning, typename Make>
HandbuiltMaker maker_of(const TuningSettings<Tuning>& settings, Make make) {
  return [&settings, make](const std::vector<RankContext>& ranks, const SettingValues& values) {
    return make(ranks, tuning_from(settings, values));
  };
}

// A hand-built algorithm, declared once at the end of its own file.
struct HandbuiltDescriptor {
  std::string_view name;
  std::string_view summary;         // one line for --help
  std::string_view kernels;         // the folder of its CUDA: "kernels/ring/"
  std::string_view setting_prefix;  // "ring" for ring_ctas: --algo ring:ctas=64
  std::vector<SettingSpec> settings;
  AlgorithmCapabilities capabilities;
  HandbuiltMaker make;
};
const HandbuiltDescriptor& ring_descriptor();
const HandbuiltDescriptor& ring_sendrecv_descriptor();
const HandbuiltDescriptor& oneshot_descriptor();
const HandbuiltDescriptor& twoshot_descriptor();
const HandbuiltDescriptor& copy_engine_descriptor();
const HandbuiltDescriptor& copy_engine_ring_descriptor();
// Every hand-built algorithm, in --help order: the registry's entries after NCCL's.
const std::vector<const HandbuiltDescriptor*>& handbuilt_descriptors();
// The descriptor called `name`; throws UsageError naming the known ones otherwise.
const HandbuiltDescriptor& find_handbuilt(std::string_view name);
// The registry's entry for `descriptor`: its settings and its maker.
AlgorithmEntry registry_entry(const HandbuiltDescriptor& descriptor);

// The algorithm called `name` with its settings' defaults, no environment read (tests); throws
// UsageError for an unknown name. Each algorithm's header makes it with a tuning of one's own.
std::unique_ptr<HandbuiltAlgorithm> make_handbuilt_algorithm(std::string_view name,
                                                             const std::vector<RankContext>& ranks);

}  // namespace collbench
