// Traffic matrices for alltoallv: parsing files, generating spreads, nccl-tests' byte counts.
#include "core/traffic_matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "core/byte_size.hpp"
#include "core/errors.hpp"
#include "core/text_fields.hpp"
#include "reports/byte_count.hpp"
#include "reports/text_file.hpp"

namespace collbench {
namespace {

constexpr std::uint64_t kSpreadUnitBytes = 16;

// The values of one line, its comment dropped: blank-separated words within comma-separated
// fields. An empty field ("1,,2", a trailing comma) is an error, being a likely lost value.
std::vector<std::string_view> split_values(std::string_view line, const std::string& where) {
  line = line.substr(0, line.find('#'));
  std::vector<std::string_view> values;
  if (trim_blanks(line).empty()) return values;
  const bool has_commas = line.find(',') != std::string_view::npos;
  while (true) {
    const std::size_t comma = line.find(',');
    const std::string_view field = trim_blanks(line.substr(0, comma));
    if (field.empty() && has_commas)
      throw UsageError(fmt::format("{} an empty value between commas", where));
    std::size_t start = 0;
    while (start < field.size()) {
      std::size_t end = start;
      while (end < field.size() && !is_blank(field[end])) ++end;
      values.push_back(field.substr(start, end - start));
      start = end;
      while (start < field.size() && is_blank(field[start])) ++start;
    }
    if (comma == std::string_view::npos) return values;
    line.remove_prefix(comma + 1);
  }
}

std::uint64_t parse_entry(std::string_view value, const std::string& where) {
  if (value.front() == '-') throw UsageError(fmt::format("{} '{}' is negative", where, value));
  std::uint64_t bytes = 0;
  try {
    bytes = report::parse_byte_count(value, where);
  } catch (const std::invalid_argument& error) {
    throw UsageError(error.what());
  }
  if (bytes > kMaxTrafficBytes) {
    throw UsageError(fmt::format("{} '{}' is too large (at most {} an entry)", where, value,
                                 format_byte_size(kMaxTrafficBytes)));
  }
  return bytes;
}

}  // namespace

std::uint64_t TrafficMatrix::at(int i, int j) const {
  return bytes[static_cast<std::size_t>(i) * ranks + j];
}

std::uint64_t TrafficMatrix::sent_by(int i) const {
  std::uint64_t sum = 0;
  for (int j = 0; j < ranks; ++j) sum += at(i, j);
  return sum;
}

std::uint64_t TrafficMatrix::received_by(int j) const {
  std::uint64_t sum = 0;
  for (int i = 0; i < ranks; ++i) sum += at(i, j);
  return sum;
}

std::uint64_t TrafficMatrix::total() const {
  std::uint64_t sum = 0;
  for (std::uint64_t b : bytes) sum += b;
  return sum;
}

TrafficMatrix parse_traffic_matrix(const std::string& name, const std::string& text) {
  TrafficMatrix matrix;
  std::uint64_t total = 0;
  int last_row_line = 0;
  std::size_t line_start = 0;
  for (int line_number = 1; line_start < text.size(); ++line_number) {
    const std::size_t line_end = std::min(text.find('\n', line_start), text.size());
    const std::string_view line(text.data() + line_start, line_end - line_start);
    line_start = line_end + 1;
    const std::string where = fmt::format("traffic matrix {} line {}:", name, line_number);
    const std::vector<std::string_view> values = split_values(line, where);
    if (values.empty()) continue;
    if (matrix.ranks == 0) {
      // The first row fixes the size.
      if (values.size() > static_cast<std::size_t>(kMaxTrafficRanks)) {
        throw UsageError(fmt::format("{} {} values in a row, more than {} ranks", where,
                                     values.size(), kMaxTrafficRanks));
      }
      matrix.ranks = static_cast<int>(values.size());
    } else if (values.size() != static_cast<std::size_t>(matrix.ranks)) {
      throw UsageError(fmt::format("{} a row of {} values where the first row has {}", where,
                                   values.size(), matrix.ranks));
    }
    if (matrix.bytes.size() == static_cast<std::size_t>(matrix.ranks) * matrix.ranks) {
      throw UsageError(fmt::format("{} row {} of a matrix {} values wide: not square", where,
                                   matrix.ranks + 1, matrix.ranks));
    }
    for (std::string_view value : values) {
      matrix.bytes.push_back(parse_entry(value, where));
      total += matrix.bytes.back();
      if (total > kMaxTrafficBytes) {
        throw UsageError(fmt::format("{} '{}' brings the total above {}", where, value,
                                     format_byte_size(kMaxTrafficBytes)));
      }
    }
    last_row_line = line_number;
  }
  if (matrix.ranks == 0)
    throw UsageError(fmt::format("traffic matrix {}: empty (no values)", name));
  const std::size_t rows = matrix.bytes.size() / matrix.ranks;
  if (rows != static_cast<std::size_t>(matrix.ranks)) {
    throw UsageError(fmt::format("traffic matrix {} line {}: only {} rows of {} values: not square",
                                 name, last_row_line, rows, matrix.ranks));
  }
  return matrix;
}

TrafficMatrix read_traffic_matrix(const std::string& path) {
  std::string text;
  try {
    text = report::read_text_file(path, kMaxTrafficFileBytes);
  } catch (const report::TextFileError& error) {
    throw UsageError(fmt::format("traffic matrix {}: {}", path, error.what()));
  }
  return parse_traffic_matrix(path, text);
}

std::vector<std::uint64_t> spread_by_distance(int ranks, std::uint64_t bytes_per_rank,
                                              double spread) {
  if (!(spread >= 0.0 && spread <= 1.0)) {
    throw UsageError(fmt::format("--a2av-spread {} is outside 0..1", spread));
  }
  if (ranks < 1 || ranks > kMaxTrafficRanks) {
    throw UsageError(
        fmt::format("alltoallv spread over {} ranks (expected 1 to {})", ranks, kMaxTrafficRanks));
  }
  if (bytes_per_rank > kMaxTrafficBytes) {
    throw UsageError(fmt::format("alltoallv spread of {} bytes a rank is above {}", bytes_per_rank,
                                 format_byte_size(kMaxTrafficBytes)));
  }
  // Bytes by forward distance k = (j - i) mod ranks, the same for every row.
  std::vector<std::uint64_t> pattern(ranks);
  const double total = static_cast<double>(bytes_per_rank);
  if (ranks == 1) {
    pattern[0] = bytes_per_rank / kSpreadUnitBytes * kSpreadUnitBytes;
  } else {
    const double distance_sum = static_cast<double>(ranks) * (ranks - 1) / 2;
    for (int k = 0; k < ranks; ++k) {
      const double bytes = (1.0 - spread) * total / ranks + spread * k * total / distance_sum;
      pattern[k] = static_cast<std::uint64_t>(bytes) / kSpreadUnitBytes * kSpreadUnitBytes;
    }
  }
  return pattern;
}

TrafficMatrix spread_matrix(int ranks, std::uint64_t bytes_per_rank, double spread) {
  const std::vector<std::uint64_t> pattern = spread_by_distance(ranks, bytes_per_rank, spread);
  TrafficMatrix matrix{ranks, std::vector<std::uint64_t>(static_cast<std::size_t>(ranks) * ranks)};
  for (int i = 0; i < ranks; ++i) {
    for (int j = 0; j < ranks; ++j)
      matrix.bytes[static_cast<std::size_t>(i) * ranks + j] = pattern[(j - i + ranks) % ranks];
  }
  return matrix;
}

std::uint64_t alltoallv_algbw_bytes(const TrafficMatrix& matrix) {
  std::uint64_t busiest = 0;
  for (int r = 0; r < matrix.ranks; ++r)
    busiest = std::max({busiest, matrix.sent_by(r), matrix.received_by(r)});
  return busiest;
}

double alltoallv_bus_factor(int ranks) {
  return static_cast<double>(ranks - 1) / ranks;
}

std::vector<std::uint64_t> alltoallv_element_counts(const TrafficMatrix& matrix,
                                                    std::size_t element_bytes) {
  std::vector<std::uint64_t> counts(matrix.bytes.size());
  for (std::size_t index = 0; index < counts.size(); ++index) {
    const std::uint64_t bytes = matrix.bytes[index];
    if (bytes % element_bytes != 0) {
      throw UsageError(
          fmt::format("alltoallv traffic from rank {} to rank {} ({} bytes) is not a whole number "
                      "of {}-byte elements",
                      index / matrix.ranks, index % matrix.ranks, bytes, element_bytes));
    }
    counts[index] = bytes / element_bytes;
  }
  return counts;
}

}  // namespace collbench
