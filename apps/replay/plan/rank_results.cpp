// Packing a rank's results: [iteration][op] (start, end), then the windows, the plain windows,
// then the mismatches.
#include "plan/rank_results.hpp"

#include <stdexcept>

namespace collbench::replay {

std::size_t packed_results_size(std::size_t ops, std::size_t iterations) {
  return iterations * ops * 2 + 2 * iterations + ops;
}

std::vector<double> pack_results(const RankResults& results, std::size_t ops,
                                 std::size_t iterations) {
  if (results.iterations.size() != iterations || results.window_us.size() != iterations ||
      results.plain_window_us.size() != iterations || results.mismatches.size() > ops)
    throw std::logic_error("rank results of another shape than packed");
  std::vector<double> packed(packed_results_size(ops, iterations), 0.0);
  for (std::size_t i = 0; i < iterations; ++i) {
    const std::vector<OpInterval>& intervals = results.iterations[i];
    if (intervals.size() > ops) throw std::logic_error("more op intervals than packed");
    for (std::size_t op = 0; op < intervals.size(); ++op) {
      packed[(i * ops + op) * 2] = intervals[op].start_us;
      packed[(i * ops + op) * 2 + 1] = intervals[op].end_us;
    }
    packed[iterations * ops * 2 + i] = results.window_us[i];
    packed[iterations * ops * 2 + iterations + i] = results.plain_window_us[i];
  }
  for (std::size_t op = 0; op < results.mismatches.size(); ++op)
    packed[iterations * ops * 2 + 2 * iterations + op] =
        static_cast<double>(results.mismatches[op]);
  return packed;
}

RankResults unpack_results(const std::vector<double>& packed, std::size_t rank_ops, std::size_t ops,
                           std::size_t iterations) {
  if (packed.size() != packed_results_size(ops, iterations) || rank_ops > ops)
    throw std::logic_error("packed rank results of another shape");
  RankResults results;
  results.iterations.assign(iterations, std::vector<OpInterval>(rank_ops));
  for (std::size_t i = 0; i < iterations; ++i) {
    for (std::size_t op = 0; op < rank_ops; ++op) {
      results.iterations[i][op] = {packed[(i * ops + op) * 2], packed[(i * ops + op) * 2 + 1]};
    }
    results.window_us.push_back(packed[iterations * ops * 2 + i]);
    results.plain_window_us.push_back(packed[iterations * ops * 2 + iterations + i]);
  }
  for (std::size_t op = 0; op < rank_ops; ++op)
    results.mismatches.push_back(
        static_cast<std::uint64_t>(packed[iterations * ops * 2 + 2 * iterations + op]));
  return results;
}

}  // namespace collbench::replay
