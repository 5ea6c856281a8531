// Construction of the hand-built algorithms by name, and their knobs from the environment.
#include "algorithms/handbuilt_algorithms.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"

namespace collbench {

namespace {

// The value of environment variable `name` parsed as a positive number, or `fallback` when unset.
template <typename T>
T from_env(const char* name, T fallback, bool zero_allowed = false) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || value < 0 || (value == 0 && !zero_allowed)) {
    throw UsageError(fmt::format("{}={} is not a {} number", name, text,
                                 zero_allowed ? "non-negative" : "positive"));
  }
  return static_cast<T>(value);
}

// The names the environment and the CSV config column use for the two-way knobs.
std::string_view name_of(kernels::RingProtocol protocol) {
  return protocol == kernels::RingProtocol::push ? "push" : "pull";
}
std::string_view name_of(PeerKernelLaunch launch) {
  return launch == PeerKernelLaunch::graph ? "graph" : "direct";
}
std::string_view name_of(ProgrammaticLaunch launch) {
  switch (launch) {
    case ProgrammaticLaunch::on:
      return "on";
    case ProgrammaticLaunch::by_size:
      return "auto";
    default:
      return "off";
  }
}

// The value of environment variable `name` as one of `choices` (by name_of), or `fallback` when
// unset.
template <typename Choice>
Choice choice_from_env(const char* name, Choice fallback, std::initializer_list<Choice> choices) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  std::vector<std::string_view> names;
  for (Choice choice : choices) {
    if (name_of(choice) == text) return choice;
    names.push_back(name_of(choice));
  }
  throw UsageError(fmt::format("{}={} is not one of {}", name, text, fmt::join(names, ", ")));
}

}  // namespace

RoundSplit equal_rounds(std::uint64_t count, std::uint64_t largest, std::uint64_t unit) {
  if (count == 0) return {unit, 0};
  largest = std::max(unit, largest / unit * unit);
  const std::uint64_t fewest = (count + largest - 1) / largest;
  const std::uint64_t share = (count + fewest - 1) / fewest;
  const std::uint64_t elements = (share + unit - 1) / unit * unit;  // <= largest
  // Rounding the share up to whole units may leave fewer rounds than `fewest`, never more.
  return {elements, static_cast<int>((count + elements - 1) / elements)};
}

bool oneshot_is_programmatic(ProgrammaticLaunch mode, int nranks, std::size_t bytes) {
  if (mode != ProgrammaticLaunch::by_size) return mode == ProgrammaticLaunch::on;
  return static_cast<std::size_t>(std::max(nranks - 1, 0)) * bytes >=
         kOneshotProgrammaticMinPeerBytes;
}

HandbuiltTuning HandbuiltTuning::from_environment() {
  HandbuiltTuning tuning;
  tuning.ring_protocol =
      choice_from_env("COLLBENCH_RING_PROTOCOL", tuning.ring_protocol,
                      {kernels::RingProtocol::push, kernels::RingProtocol::pull});
  tuning.ring_max_ctas = from_env("COLLBENCH_RING_CTAS", tuning.ring_max_ctas);
  tuning.ring_large_ctas = from_env("COLLBENCH_RING_LARGE_CTAS", tuning.ring_large_ctas);
  tuning.ring_large_bytes = from_env("COLLBENCH_RING_LARGE_BYTES", tuning.ring_large_bytes);
  tuning.ring_min_part_bytes =
      from_env("COLLBENCH_RING_MIN_PART_BYTES", tuning.ring_min_part_bytes);
  tuning.ring_slice_bytes = from_env("COLLBENCH_RING_SLICE_BYTES", tuning.ring_slice_bytes);
  tuning.ring_slots = from_env("COLLBENCH_RING_SLOTS", tuning.ring_slots);
  tuning.twoshot_ctas = from_env("COLLBENCH_TWOSHOT_CTAS", tuning.twoshot_ctas);
  tuning.twoshot_slice_bytes =
      from_env("COLLBENCH_TWOSHOT_SLICE_BYTES", tuning.twoshot_slice_bytes);
  tuning.peer_timeout_s = from_env("COLLBENCH_PEER_TIMEOUT_S", tuning.peer_timeout_s, true);
  tuning.peer_kernel_launch = choice_from_env("COLLBENCH_PEER_LAUNCH", tuning.peer_kernel_launch,
                                              {PeerKernelLaunch::graph, PeerKernelLaunch::direct});
  tuning.oneshot_programmatic = choice_from_env(
      "COLLBENCH_ONESHOT_PDL", tuning.oneshot_programmatic,
      {ProgrammaticLaunch::by_size, ProgrammaticLaunch::on, ProgrammaticLaunch::off});
  tuning.copy_engine_round_bytes =
      from_env("COLLBENCH_CE_ROUND_BYTES", tuning.copy_engine_round_bytes);
  tuning.copy_engine_reduce_blocks =
      from_env("COLLBENCH_CE_REDUCE_BLOCKS", tuning.copy_engine_reduce_blocks);
  tuning.validate();
  return tuning;
}

void HandbuiltTuning::validate() const {
  if (!kernels::ring_push_slots_valid(ring_slots)) {
    throw UsageError(fmt::format(
        "COLLBENCH_RING_SLOTS={} is not a power of two from 2 to {} (staging slots per CTA)",
        ring_slots, kernels::kRingMaxSlots));
  }
  if (ring_max_ctas < 1) {
    throw UsageError(fmt::format("COLLBENCH_RING_CTAS={} is not positive", ring_max_ctas));
  }
  if (copy_engine_reduce_blocks < 1) {
    throw UsageError(
        fmt::format("COLLBENCH_CE_REDUCE_BLOCKS={} is not positive", copy_engine_reduce_blocks));
  }
  if (ring_large_ctas < 1) {
    throw UsageError(fmt::format("COLLBENCH_RING_LARGE_CTAS={} is not positive", ring_large_ctas));
  }
  if (twoshot_ctas < 1) {
    throw UsageError(fmt::format("COLLBENCH_TWOSHOT_CTAS={} is not positive", twoshot_ctas));
  }
}

std::string HandbuiltTuning::config_of(std::string_view algorithm) const {
  const HandbuiltTuning defaults;
  std::vector<std::string> knobs;
  auto add_if_changed = [&knobs](const char* key, auto value, auto default_value) {
    if (value != default_value) knobs.push_back(fmt::format("{}={}", key, value));
  };
  if (algorithm == "ring") {
    add_if_changed("ring_protocol", name_of(ring_protocol), name_of(defaults.ring_protocol));
    add_if_changed("ring_ctas", ring_max_ctas, defaults.ring_max_ctas);
    add_if_changed("ring_large_ctas", ring_large_ctas, defaults.ring_large_ctas);
    add_if_changed("ring_large_bytes", ring_large_bytes, defaults.ring_large_bytes);
    add_if_changed("ring_min_part_bytes", ring_min_part_bytes, defaults.ring_min_part_bytes);
    add_if_changed("ring_slice_bytes", ring_slice_bytes, defaults.ring_slice_bytes);
    if (ring_protocol == kernels::RingProtocol::push) {  // the pull ring has no staging slots
      add_if_changed("ring_slots", ring_slots, defaults.ring_slots);
    }
  }
  if (algorithm == "twoshot") {
    add_if_changed("twoshot_ctas", twoshot_ctas, defaults.twoshot_ctas);
    add_if_changed("twoshot_slice_bytes", twoshot_slice_bytes, defaults.twoshot_slice_bytes);
    add_if_changed("ring_min_part_bytes", ring_min_part_bytes, defaults.ring_min_part_bytes);
  }
  if (algorithm == "oneshot") {
    add_if_changed("oneshot_pdl", name_of(oneshot_programmatic),
                   name_of(defaults.oneshot_programmatic));
  }
  // Always programmatic, oneshot launches directly, whatever peer_launch says.
  const bool peer_launch_applies =
      algorithm == "ring" || algorithm == "twoshot" ||
      (algorithm == "oneshot" && oneshot_programmatic != ProgrammaticLaunch::on);
  if (peer_launch_applies) {
    add_if_changed("peer_launch", name_of(peer_kernel_launch),
                   name_of(defaults.peer_kernel_launch));
  }
  if (algorithm == "copy_engine" || algorithm == "copy_engine_ring") {
    add_if_changed("ce_round_bytes", copy_engine_round_bytes, defaults.copy_engine_round_bytes);
    add_if_changed("ce_reduce_blocks", copy_engine_reduce_blocks,
                   defaults.copy_engine_reduce_blocks);
  }
  return fmt::format("{}", fmt::join(knobs, ";"));
}

std::string handbuilt_config(std::string_view algorithm) {
  return HandbuiltTuning::from_environment().config_of(algorithm);
}

std::unique_ptr<CollectiveAlgorithm> make_ring_algorithm(const std::vector<RankContext>& ranks) {
  return make_ring(ranks, HandbuiltTuning::from_environment());
}
std::unique_ptr<CollectiveAlgorithm> make_ring_sendrecv_algorithm(
    const std::vector<RankContext>& ranks) {
  return make_ring_sendrecv(ranks, HandbuiltTuning::from_environment());
}
std::unique_ptr<CollectiveAlgorithm> make_oneshot_algorithm(const std::vector<RankContext>& ranks) {
  return make_oneshot(ranks, HandbuiltTuning::from_environment());
}
std::unique_ptr<CollectiveAlgorithm> make_twoshot_algorithm(const std::vector<RankContext>& ranks) {
  return make_twoshot(ranks, HandbuiltTuning::from_environment());
}

std::unique_ptr<CollectiveAlgorithm> make_copy_engine_algorithm(
    const std::vector<RankContext>& ranks) {
  return make_copy_engine(ranks, HandbuiltTuning::from_environment(), CopyEngineExchange::direct);
}
std::unique_ptr<CollectiveAlgorithm> make_copy_engine_ring_algorithm(
    const std::vector<RankContext>& ranks) {
  return make_copy_engine(ranks, HandbuiltTuning::from_environment(), CopyEngineExchange::ring);
}

std::unique_ptr<HandbuiltAlgorithm> make_handbuilt_algorithm(std::string_view name,
                                                             const std::vector<RankContext>& ranks,
                                                             const HandbuiltTuning& tuning) {
  if (name == "ring") return make_ring(ranks, tuning);
  if (name == "ring_sendrecv") return make_ring_sendrecv(ranks, tuning);
  if (name == "oneshot") return make_oneshot(ranks, tuning);
  if (name == "twoshot") return make_twoshot(ranks, tuning);
  if (name == "copy_engine") return make_copy_engine(ranks, tuning, CopyEngineExchange::direct);
  if (name == "copy_engine_ring") return make_copy_engine(ranks, tuning, CopyEngineExchange::ring);
  throw UsageError(fmt::format(
      "unknown hand-built algorithm '{}' (expected ring, ring_sendrecv, oneshot, twoshot, "
      "copy_engine or copy_engine_ring)",
      name));
}

}  // namespace collbench
