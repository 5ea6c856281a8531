// Expansion of options into cases.
#include "collbench/sweep_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "algorithms/algorithm_registry.hpp"
#include "core/algorithm.hpp"
#include "core/byte_size.hpp"
#include "core/config_column.hpp"
#include "core/errors.hpp"
#include "frame/settings/value_parsers.hpp"

namespace collbench {
namespace {

// The roots of `spec` for a case of `ranks` GPUs: ranks of one communicator (of a group of
// `group_ranks` under --split).
std::vector<int> roots_for(const CollectiveSpec& spec, const std::string& roots, int ranks,
                           int group_ranks) {
  if (!spec.rooted) return {-1};
  if (roots == "all") {
    std::vector<int> every(group_ranks);
    for (int r = 0; r < group_ranks; ++r) every[r] = r;
    return every;
  }
  const int root = parse_non_negative_int(roots, "--root");
  if (root >= group_ranks) {
    if (group_ranks == ranks) {
      throw UsageError(
          fmt::format("--root {} is outside the {} ranks of a {}-GPU case", root, ranks, ranks));
    }
    throw UsageError(
        fmt::format("--root {} is outside the {} ranks of each --split group of a {}-GPU case",
                    root, group_ranks, ranks));
  }
  return {root};
}

// The communicators `choice` runs on: for NCCL, every combination of the NCCL axes (algorithm,
// then protocol, then CTA limit varying fastest); hand-built algorithms once, on defaults. Every
// one carries --split.
std::vector<CommunicatorSettings> communicator_variants(const Options& options,
                                                        const AlgorithmChoice& choice) {
  if (!choice.entry->capabilities.nccl_communicator_variants)
    return {CommunicatorSettings{"", "", 0, options.split}};
  return nccl_combinations(options.axes, options.split);
}

// The ranks of one communicator of a `ranks`-GPU case: all of them, or under --split rank 0's
// group's (a split into unequal groups is skipped, see split_skip_reason).
int communicator_ranks(const Options& options, int ranks) {
  return static_cast<int>(communicator_groups({"", "", 0, options.split}, ranks).front().size());
}

// Why `c` cannot run under --split, or empty: hand-built algorithms are one clique of every rank,
// and busbw and sizes are per group, so the groups must be equal.
std::string split_skip_reason(const Case& c) {
  if (!c.communicator.split) return {};
  if (!c.algorithm.entry->capabilities.nccl_communicator_variants) {
    return fmt::format("--split runs NCCL only: {} is one clique of every rank of the GPU count",
                       c.algo());
  }
  const std::vector<std::vector<int>> groups = c.groups();
  for (const std::vector<int>& group : groups) {
    if (group.size() != groups.front().size()) {
      return fmt::format(
          "--split '{}' makes groups of unequal size on {} GPUs ({}); sizes and busbw are per "
          "group",
          c.communicator.split->text(), c.ranks, describe_groups(groups));
    }
  }
  return {};
}

// Reorders one GPU count's cases so that each communicator combination's cases are together, the
// combinations in the order they first appear, and keeps the order within each.
void group_by_communicators(std::vector<Case>::iterator first, std::vector<Case>::iterator last) {
  std::vector<std::string> keys;
  const auto order_of = [&keys](const Case& c) {
    const std::string key = communicator_config(c.communicator, c.ranks);
    const auto found = std::find(keys.begin(), keys.end(), key);
    if (found != keys.end()) return static_cast<std::size_t>(found - keys.begin());
    keys.push_back(key);
    return keys.size() - 1;
  };
  std::vector<std::pair<std::size_t, Case>> ordered;
  for (auto it = first; it != last; ++it) ordered.emplace_back(order_of(*it), std::move(*it));
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [order, c] : ordered) *first++ = std::move(c);
}

// Every --algo entry resolved once ("all": every implementation's name, at its defaults), in
// order, without repeats. Throws UsageError for an unknown name or a bad setting.
std::vector<AlgorithmChoice> resolve_algorithms(const std::vector<std::string>& requested) {
  std::vector<AlgorithmChoice> choices;
  const auto add = [&choices](AlgorithmChoice choice) {
    const std::string key = choice.key();
    for (const AlgorithmChoice& known : choices) {
      if (known.key() == key) return;
    }
    choices.push_back(std::move(choice));
  };
  for (const std::string& text : requested) {
    if (text == "all") {
      for (const AlgorithmEntry& entry : algorithm_registry()) add(resolve_algorithm(entry.name));
    } else {
      add(resolve_algorithm(text));
    }
  }
  return choices;
}

// The choices that implement `spec`'s operation; a name known only for other ops means "not
// for this op".
std::vector<AlgorithmChoice> algos_for(const CollectiveSpec& spec,
                                       const std::vector<AlgorithmChoice>& choices) {
  std::vector<AlgorithmChoice> algos;
  for (const AlgorithmChoice& choice : choices) {
    const AlgorithmEntry* entry = find_algorithm(choice.name(), spec.kind);
    if (entry != nullptr) algos.push_back({entry, choice.settings});
  }
  return algos;
}

// In-place variants that mean something for `spec` (alltoall, alltoallv and sendrecv have none).
std::vector<bool> in_place_variants(const CollectiveSpec& spec, InPlaceMode mode) {
  const bool can_be_in_place = spec.in_place != InPlaceLayout::unsupported;
  switch (mode) {
    case InPlaceMode::out_of_place:
      return {false};
    case InPlaceMode::in_place:
      return can_be_in_place ? std::vector<bool>{true} : std::vector<bool>{};
    default:
      return can_be_in_place ? std::vector<bool>{false, true} : std::vector<bool>{false};
  }
}

// The cases of each communicator (GPU count and communicator settings; the plan keeps them
// together) once per --register mode, one mode after another: a mode's buffers and registrations
// are then made once per communicator and only grow, instead of being thrown away between cases
// (modes cannot share buffers: NCCL finds registrations by address).
std::vector<Case> expand_registrations(const std::vector<Case>& cases,
                                       const std::vector<BufferRegistration>& modes) {
  const auto same_communicators = [](const Case& a, const Case& b) {
    return a.ranks == b.ranks && communicator_config(a.communicator, a.ranks) ==
                                     communicator_config(b.communicator, b.ranks);
  };
  std::vector<Case> expanded;
  expanded.reserve(cases.size() * modes.size());
  for (std::size_t first = 0; first < cases.size();) {
    std::size_t end = first;
    while (end < cases.size() && same_communicators(cases[end], cases[first])) ++end;
    for (BufferRegistration mode : modes) {
      for (std::size_t i = first; i < end; ++i) {
        expanded.push_back(cases[i]);
        expanded.back().registration = mode;
      }
    }
    first = end;
  }
  return expanded;
}

// --a2av-matrix's traffic for each element size of the swept types, made once and shared by the
// cases; none without a matrix or an op that takes traffic. Throws UsageError when no
// communicator's ranks (a --gpus count, or its --split groups') are the matrix's dimension, or
// naming the file when an entry is not a whole number of elements of a swept type.
using MatrixTraffics = std::map<std::size_t, std::shared_ptr<const PeerTraffic>>;
MatrixTraffics matrix_traffics(const Options& options, const std::vector<int>& gpu_counts) {
  const auto takes_traffic = [](const std::string& op) {
    return find_collective(op).takes_traffic;
  };
  if (!options.a2av_matrix || std::none_of(options.ops.begin(), options.ops.end(), takes_traffic))
    return {};
  const int dimension = options.a2av_matrix->ranks;
  std::vector<int> sizes;
  for (int n : gpu_counts) sizes.push_back(communicator_ranks(options, n));
  if (std::find(sizes.begin(), sizes.end(), dimension) == sizes.end()) {
    std::string counts;
    for (int n : sizes) counts += fmt::format("{}{}", counts.empty() ? "" : ",", n);
    throw UsageError(
        fmt::format("--a2av-matrix {} is for {} ranks, and {} {}", options.a2av_matrix_path,
                    dimension, options.split ? "the --split groups have" : "--gpus gives", counts));
  }
  MatrixTraffics traffics;
  for (DataType type : options.types) {
    std::shared_ptr<const PeerTraffic>& traffic = traffics[size_of(type)];
    if (!traffic)
      traffic = matrix_traffic(*options.a2av_matrix, options.a2av_matrix_path, size_of(type));
  }
  return traffics;
}

// The --a2av-matrix case of `stem` (its op, algo, ranks, type and communicators set): the
// matrix's own bytes, skipped where a communicator's ranks are not the matrix's dimension.
Case matrix_case(Case stem, const MatrixTraffics& traffics, const std::string& path) {
  stem.traffic = traffics.at(size_of(stem.type));
  stem.counts = stem.spec->counts(0, size_of(stem.type), stem.traffic->ranks(), stem.traffic.get());
  stem.requested_bytes = stem.bytes();
  const int ranks = stem.group_ranks();
  if (stem.traffic->ranks() != ranks && stem.skip_reason.empty()) {
    stem.skip_reason =
        fmt::format("the traffic matrix {} is for {} ranks, not {}{}", path, stem.traffic->ranks(),
                    ranks, ranks == stem.ranks ? "" : " (each --split group's)");
  }
  return stem;
}

// `stem` (op, algo, ranks, communicators, dtype, redop and root set) at every size, for alltoallv
// at every
// --a2av-spread and size, or with --a2av-matrix in its one case. Sizes that round to the same
// counts (8 B and 16 B of all_gather on 2 ranks both move nothing) are one case, measured once.
std::vector<Case> sized_cases(const Case& stem, const Options& options,
                              const std::vector<std::size_t>& sizes, const MatrixTraffics& matrix) {
  const CollectiveSpec& spec = *stem.spec;
  if (spec.takes_traffic && !matrix.empty())
    return {matrix_case(stem, matrix, options.a2av_matrix_path)};
  std::vector<std::optional<double>> spreads = {std::nullopt};
  if (spec.takes_traffic) spreads.assign(options.a2av_spreads.begin(), options.a2av_spreads.end());
  const std::size_t element_bytes = size_of(stem.type);
  const int ranks = stem.group_ranks();  // of one communicator: counts and traffic are per group
  std::vector<Case> cases;
  for (const std::optional<double>& spread : spreads) {
    std::optional<std::size_t> previous_param;
    for (std::size_t bytes : sizes) {
      Case sized = stem;
      sized.requested_bytes = bytes;
      if (spread) sized.traffic = spread_traffic(*spread, bytes, element_bytes, ranks);
      sized.counts = spec.counts(bytes / element_bytes, element_bytes, ranks, sized.traffic.get());
      if (previous_param == sized.counts.param) continue;
      previous_param = sized.counts.param;
      cases.push_back(std::move(sized));
    }
  }
  return cases;
}

}  // namespace

std::vector<std::size_t> sweep_sizes(const Options& options) {
  std::vector<std::size_t> sizes;
  std::size_t size = options.min_bytes;
  while (size <= options.max_bytes) {
    if (sizes.size() == kMaxSizes) {
      throw UsageError(
          fmt::format("-b {} -e {} with this step gives more than {} sizes; use a larger step",
                      options.min_bytes, options.max_bytes, kMaxSizes));
    }
    sizes.push_back(size);
    // A factor too small to move a small size still advances it by a byte (the size cap above
    // ends a sweep that would crawl); a step past the largest size ends the sweep.
    const double next = options.step_bytes > 0
                            ? static_cast<double>(size) + static_cast<double>(options.step_bytes)
                            : std::floor(static_cast<double>(size) * options.step_factor);
    if (!(next <= static_cast<double>(options.max_bytes))) break;
    size = std::max(size + 1, static_cast<std::size_t>(next));
  }
  return sizes;
}

std::vector<Case> build_sweep(const Options& options, int visible_gpus, bool listing) {
  const std::vector<int> gpu_counts = parse_gpu_counts(options.common.gpu_counts, visible_gpus);
  if (!listing) {
    for (int n : gpu_counts) {
      if (n > visible_gpus) {
        // In a multi-process run `visible_gpus` is the process count, one GPU each.
        throw UsageError(
            fmt::format("--gpus asks for {} GPUs but {} {} available (visible GPUs, "
                        "or processes when launched as several)",
                        n, visible_gpus, visible_gpus == 1 ? "is" : "are"));
      }
    }
  }
  const MatrixTraffics matrix = matrix_traffics(options, gpu_counts);
  const std::vector<std::size_t> sizes = sweep_sizes(options);
  const std::vector<AlgorithmChoice> choices = resolve_algorithms(options.algos);
  std::vector<Case> cases;
  for (int ranks : gpu_counts) {
    const std::size_t first_of_count = cases.size();
    // All groups are the same size or the cases are skipped; rank 0's group sets the roots.
    const int group_ranks = communicator_ranks(options, ranks);
    for (const std::string& op_name : options.ops) {
      const CollectiveSpec& spec = find_collective(op_name);
      const std::vector<ReduceOp> reduce_ops =
          spec.reduces ? options.reduce_ops : std::vector<ReduceOp>{ReduceOp::none};
      for (const AlgorithmChoice& choice : algos_for(spec, choices)) {
        for (const CommunicatorSettings& communicator : communicator_variants(options, choice)) {
          for (DataType type : options.types) {
            for (ReduceOp op : reduce_ops) {
              for (int root : roots_for(spec, options.roots, ranks, group_ranks)) {
                Case stem{&spec, choice, ranks, type, op, root, false, 0, {}, 0, communicator};
                stem.skip_reason = split_skip_reason(stem);
                for (Case& sized : sized_cases(stem, options, sizes, matrix)) {
                  for (bool in_place : in_place_variants(spec, options.in_place)) {
                    sized.in_place = in_place;
                    cases.push_back(sized);
                  }
                }
              }
            }
          }
        }
      }
    }
    group_by_communicators(cases.begin() + static_cast<std::ptrdiff_t>(first_of_count),
                           cases.end());
  }
  const std::size_t total =
      cases.size() * options.axes.registrations.size() * static_cast<std::size_t>(options.repeats);
  if (total > kMaxCases) {
    throw UsageError(fmt::format("the command line selects {} cases (more than {}); narrow it",
                                 total, kMaxCases));
  }
  cases = expand_registrations(cases, options.axes.registrations);
  if (cases.empty())
    throw UsageError("the command line selects no case (check --algo against --ops)");
  const std::size_t one_pass = cases.size();
  for (int pass = 1; pass < options.repeats; ++pass) {
    for (std::size_t i = 0; i < one_pass; ++i) {
      cases.push_back(cases[i]);
      cases.back().repeat = pass;
    }
  }
  return cases;
}

}  // namespace collbench
