// Checks the registry's expected-output rules (used by the GPU check kernel) against a plain
// host simulation of each collective's semantics, written independently here.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/collective_registry.hpp"
#include "core/peer_traffic.hpp"
#include "test_values.cuh"

namespace collbench {
namespace {

using kernels::PatternParams;

double reduce_values(const std::vector<double>& values, ReduceOp op, DataType type) {
  double result = values[0];
  for (std::size_t i = 1; i < values.size(); ++i) {
    switch (op) {
      case ReduceOp::prod:
        result *= values[i];
        break;
      case ReduceOp::max:
        result = std::max(result, values[i]);
        break;
      case ReduceOp::min:
        result = std::min(result, values[i]);
        break;
      default:
        result += values[i];
        break;
    }
  }
  if (op == ReduceOp::avg) {
    const double n = static_cast<double>(values.size());
    return is_floating(type) ? result / n : std::trunc(result / n);
  }
  return result;
}

// outputs[k][j]: what rank k must hold after the collective, from the inputs' semantics.
std::vector<std::vector<double>> simulate(const CollectiveSpec& spec, const ElementCounts& counts,
                                          const PatternParams& p, ReduceOp op, DataType type,
                                          int root) {
  const int n = p.nranks;
  const std::size_t c = counts.param;
  auto input = [&](int rank, std::size_t i) { return kernels::input_value(p, rank, i); };
  auto reduced = [&](std::size_t i) {
    std::vector<double> values;
    for (int r = 0; r < n; ++r) values.push_back(input(r, i));
    return reduce_values(values, op, type);
  };
  std::vector<std::vector<double>> out(n, std::vector<double>(counts.recv, NAN));
  for (int k = 0; k < n; ++k) {
    for (std::size_t j = 0; j < counts.recv; ++j) {
      const std::string_view name = spec.name;
      if (name == "all_reduce") out[k][j] = reduced(j);
      if (name == "reduce" && k == root) out[k][j] = reduced(j);
      if (name == "reduce_scatter") out[k][j] = reduced(k * c + j);
      if (name == "all_gather" || (name == "gather" && k == root))
        out[k][j] = input(static_cast<int>(j / c), j % c);
      if (name == "broadcast") out[k][j] = input(root, j);
      if (name == "scatter") out[k][j] = input(root, k * c + j);
      if (name == "alltoall") out[k][j] = input(static_cast<int>(j / c), k * c + j % c);
      if (name == "sendrecv") out[k][j] = input((k + n - 1) % n, j);
    }
  }
  return out;
}

TEST(ExpectedValues, RulesMatchASimulationOfEveryCollective) {
  for (const CollectiveSpec& spec : collective_registry()) {
    if (spec.takes_traffic) continue;  // alltoallv: AlltoallvRuleMatchesASimulation
    for (int n : {1, 2, 3, 4, 8}) {
      for (DataType type :
           {DataType::int8, DataType::uint8, DataType::half, DataType::float32, DataType::int64}) {
        const std::vector<ReduceOp> ops =
            spec.reduces ? all_reduce_ops() : std::vector<ReduceOp>{ReduceOp::none};
        for (ReduceOp op : ops) {
          const int root = spec.rooted ? n - 1 : -1;
          const ElementCounts counts = spec.counts(777, size_of(type), n, nullptr);
          const PatternParams p{42,
                                n,
                                std::max(root, 0),
                                counts.param,
                                static_cast<kernels::ElementType>(type),
                                static_cast<kernels::Reduction>(op)};
          const auto outputs = simulate(spec, counts, p, op, type, root);
          for (int k = 0; k < n; ++k) {
            if (spec.expected.root_only && k != root) continue;
            for (std::size_t j = 0; j < counts.recv; ++j) {
              ASSERT_EQ(kernels::expected_value(p, spec.expected, k, j), outputs[k][j])
                  << spec.name << " n=" << n << " type=" << name_of(type) << " op=" << name_of(op)
                  << " rank=" << k << " j=" << j;
            }
          }
        }
      }
    }
  }
}

// alltoallv on `bytes` (row-major, bytes[i * n + j] from rank i to rank j), simulated from the
// semantics alone: rank k's output is, for each source s in rank order, the elements of s's input
// that follow what s sends to ranks below k.
std::vector<std::vector<double>> simulate_alltoallv(const std::vector<std::uint64_t>& bytes, int n,
                                                    std::size_t element_bytes,
                                                    const PatternParams& p) {
  std::vector<std::vector<double>> out(n);
  for (int k = 0; k < n; ++k) {
    for (int s = 0; s < n; ++s) {
      std::uint64_t first = 0;
      for (int t = 0; t < k; ++t) first += bytes[s * n + t] / element_bytes;
      for (std::uint64_t i = 0; i < bytes[s * n + k] / element_bytes; ++i) {
        out[k].push_back(kernels::input_value(p, s, first + i));
      }
    }
  }
  return out;
}

// Spreads of nccl-tests' formula and matrices with empty rows, columns and diagonals: the rule
// over the check's segment table gives every received element, and marks the buffer's rest as
// past what the rank receives.
TEST(ExpectedValues, AlltoallvRuleMatchesASimulation) {
  const CollectiveSpec& spec = find_collective("alltoallv");
  std::vector<TrafficMatrix> matrices;
  for (int n : {1, 2, 3, 4, 8}) {
    for (double spread : {0.0, 0.5, 1.0}) matrices.push_back(spread_matrix(n, 16 * 97 * n, spread));
  }
  matrices.push_back(parse_traffic_matrix("m", "0 64 0\n0 0 0\n32 16 48\n"));
  matrices.push_back(parse_traffic_matrix("m", "0 0\n0 0\n"));
  matrices.push_back(parse_traffic_matrix("m", "16 0 0 0\n0 0 0 160\n0 0 0 0\n48 32 0 8000\n"));
  for (const TrafficMatrix& matrix : matrices) {
    const int n = matrix.ranks;
    for (DataType type : {DataType::int8, DataType::half, DataType::float32, DataType::float64}) {
      const PeerTraffic traffic(matrix, size_of(type), 0, "");
      const ElementCounts counts = spec.counts(0, size_of(type), n, &traffic);
      PatternParams p{42,
                      n,
                      0,
                      counts.param,
                      static_cast<kernels::ElementType>(type),
                      kernels::Reduction::none};
      const auto outputs = simulate_alltoallv(matrix.bytes, n, size_of(type), p);
      for (int k = 0; k < n; ++k) {
        const std::vector<std::uint64_t> segments = traffic.receive_segments(k);
        p.segments = segments.data();
        SCOPED_TRACE("n=" + std::to_string(n) + " type=" + std::string(name_of(type)) +
                     " rank=" + std::to_string(k));
        ASSERT_LE(outputs[k].size(), counts.recv);
        for (std::size_t j = 0; j < counts.recv; ++j) {
          const bool received = j < outputs[k].size();
          ASSERT_EQ(kernels::beyond_received(p, spec.expected, j), !received) << j;
          if (received) {
            ASSERT_EQ(kernels::expected_value(p, spec.expected, k, j), outputs[k][j]) << j;
          }
        }
      }
    }
  }
}

TEST(ExpectedValues, InputsVaryAndSumsStayExact) {
  for (DataType type : all_data_types()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::none}) {
      for (int n : {2, 8}) {
        const PatternParams p{7,
                              n,
                              0,
                              1,
                              static_cast<kernels::ElementType>(type),
                              static_cast<kernels::Reduction>(op)};
        std::set<double> distinct;
        double worst_partial = 0;
        for (std::uint64_t i = 0; i < 4096; ++i) {
          double partial = 0;
          for (int r = 0; r < n; ++r) {
            const double value = kernels::input_value(p, r, i);
            distinct.insert(value);
            partial += value;
            worst_partial = std::max(worst_partial, std::fabs(partial));
          }
        }
        // Never a constant: even prod (1, 2, -1) varies; the others spread widely.
        EXPECT_GE(distinct.size(), op == ReduceOp::prod ? 2u : 9u)
            << name_of(type) << " " << name_of(op);
        if (op == ReduceOp::sum) {
          EXPECT_LE(worst_partial, kernels::value_limit(static_cast<kernels::ElementType>(type)))
              << name_of(type) << " n=" << n;
        }
      }
    }
  }
}

TEST(ExpectedValues, PoisonIsNeverAValidEightBitValue) {
  // Unwritten outputs hold the poison byte; 8-bit values must stay away from it.
  EXPECT_LT(kernels::value_limit(kernels::ElementType::int8), 0x7F);
  EXPECT_LT(kernels::value_limit(kernels::ElementType::uint8), 0xFF);
  EXPECT_EQ(kernels::poison_byte(kernels::ElementType::int8), 0x7F);
  EXPECT_EQ(kernels::poison_byte(kernels::ElementType::uint8), 0xFF);
}

}  // namespace
}  // namespace collbench
