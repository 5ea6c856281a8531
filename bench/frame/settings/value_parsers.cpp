// The shared value parsers.
#include "frame/settings/value_parsers.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "core/errors.hpp"

namespace collbench {

// `text` as a whole decimal number from 0 to `max`, or nothing.
std::optional<long> whole_number(const std::string& text, long max) {
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (text.empty() || used != text.size() || value < 0 || value > max) return std::nullopt;
  return value;
}

int parse_non_negative_int(const std::string& text, std::string_view what) {
  const std::optional<long> value = whole_number(text, 1'000'000);
  if (!value) {
    throw UsageError(fmt::format("{} '{}' is not a non-negative integer", what, shown_value(text)));
  }
  return static_cast<int>(*value);
}

int parse_positive_int(const std::string& text, std::string_view what) {
  const int value = parse_non_negative_int(text, what);
  if (value < 1) {
    throw UsageError(fmt::format("{} '{}' is not a positive integer", what, shown_value(text)));
  }
  return value;
}

std::vector<std::string> split_list(const std::string& text, std::string_view what) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (item.empty()) {
      throw UsageError(fmt::format("{} '{}' has an empty entry", what, shown_value(text)));
    }
    items.push_back(item);
  }
  if (items.empty()) throw UsageError(fmt::format("{} is empty", what));
  if (text.back() == ',') {
    throw UsageError(fmt::format("{} '{}' has an empty entry", what, shown_value(text)));
  }
  return items;
}

std::uint64_t parse_seed(const std::string& text) {
  const bool hex =
      text.size() > 2 && (text.compare(0, 2, "0x") == 0 || text.compare(0, 2, "0X") == 0);
  const std::string digits = hex ? text.substr(2) : text;
  const auto is_digit = [hex](unsigned char c) {
    return hex ? std::isxdigit(c) != 0 : std::isdigit(c) != 0;
  };
  bool valid = !digits.empty() && digits.size() <= (hex ? 16u : 20u) &&
               std::all_of(digits.begin(), digits.end(), is_digit);
  std::uint64_t value = 0;
  if (valid) {
    errno = 0;
    value = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
    valid = errno != ERANGE;
  }
  if (!valid) {
    throw UsageError(fmt::format("--seed '{}' is not a 64-bit unsigned number", shown_value(text)));
  }
  return value;
}

std::vector<int> parse_gpu_counts(const std::string& text, int visible) {
  std::vector<int> counts;
  for (const std::string& item : split_list(text, "--gpus")) {
    if (item == "all") {
      if (visible < 1) throw UsageError("--gpus all: no CUDA GPU is visible");
      counts.push_back(visible);
      continue;
    }
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      counts.push_back(parse_positive_int(item, "--gpus"));
      continue;
    }
    const int first = parse_positive_int(item.substr(0, dash), "--gpus range start");
    const int last = parse_positive_int(item.substr(dash + 1), "--gpus range end");
    if (first > last) {
      throw UsageError(fmt::format("--gpus range '{}' runs backwards", shown_value(item)));
    }
    for (int n = first; n <= last; ++n) counts.push_back(n);
  }
  dedupe(counts);
  return counts;
}

}  // namespace collbench
