// Parsing NCCL_TESTS_SPLIT rule texts and grouping ranks by their color.
#include "core/split_rule.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <climits>
#include <map>
#include <string_view>

#include "core/errors.hpp"
#include "core/text_fields.hpp"

namespace collbench {
namespace {

struct OpName {
  SplitRule::Op op;
  std::string_view keyword;
  std::string_view symbol;
};

constexpr std::array<OpName, 4> kOpNames = {{
    {SplitRule::Op::and_, "AND", "&"},
    {SplitRule::Op::or_, "OR", "|"},
    {SplitRule::Op::mod, "MOD", "%"},
    {SplitRule::Op::div, "DIV", "/"},
}};

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// A decimal or 0x-hex number up to INT_MAX (colors are ints, as in ncclCommSplit), or -1 when
// `digits` holds anything else.
long parse_rule_number(std::string_view digits) {
  int base = 10;
  if (starts_with_ignoring_case(digits, "0X")) {
    base = 16;
    digits.remove_prefix(2);
  }
  if (digits.empty()) return -1;
  long value = 0;
  for (char c : digits) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return -1;
    const int digit = std::isdigit(static_cast<unsigned char>(c))
                          ? c - '0'
                          : std::toupper(static_cast<unsigned char>(c)) - 'A' + 10;
    if (digit >= base) return -1;
    value = value * base + digit;
    if (value > INT_MAX) return -1;
  }
  return value;
}

}  // namespace

SplitRule parse_split_rule(const std::string& text) {
  auto fail = [&](std::string_view why) {
    return UsageError(fmt::format("split rule '{}' {}", text, why));
  };
  const std::string_view rule = trim_blanks(text);
  for (const OpName& name : kOpNames) {
    std::string_view rest;
    if (starts_with_ignoring_case(rule, name.keyword)) {
      rest = rule.substr(name.keyword.size());
    } else if (starts_with_ignoring_case(rule, name.symbol)) {
      rest = rule.substr(name.symbol.size());
    } else {
      continue;
    }
    const std::string_view number = trim_blanks(rest);
    if (number.empty()) throw fail(fmt::format("has no number after {}", name.keyword));
    if (number.front() == '-') throw fail(fmt::format("has a negative number '{}'", number));
    const long value = parse_rule_number(number);
    if (value < 0)
      throw fail(fmt::format("has a bad number '{}' (expected decimal or 0x hex up to {})", number,
                             INT_MAX));
    if (value == 0 && (name.op == SplitRule::Op::mod || name.op == SplitRule::Op::div)) {
      throw fail(fmt::format("divides by zero ({} 0)", name.keyword));
    }
    return SplitRule{name.op, value};
  }
  throw fail(
      "has an unknown operator (expected AND, OR, MOD, DIV or &, |, %, / and a number, e.g. 'MOD "
      "2')");
}

std::string SplitRule::text() const {
  for (const OpName& name : kOpNames) {
    if (name.op != op) continue;
    // Masks read best in hex, divisors in decimal.
    const bool mask = op == Op::and_ || op == Op::or_;
    return mask ? fmt::format("{} {:#x}", name.keyword, value)
                : fmt::format("{} {}", name.keyword, value);
  }
  return "?";
}

int SplitRule::color(int rank) const {
  const int v = static_cast<int>(value);
  switch (op) {
    case Op::and_:
      return rank & v;
    case Op::or_:
      return rank | v;
    case Op::mod:
      return rank % v;
    case Op::div:
      return rank / v;
  }
  return 0;
}

std::vector<std::vector<int>> split_groups(const SplitRule& rule, int ranks) {
  std::map<int, std::vector<int>> by_color;
  for (int rank = 0; rank < ranks; ++rank) by_color[rule.color(rank)].push_back(rank);
  std::vector<std::vector<int>> groups;
  for (auto& [color, members] : by_color) groups.push_back(std::move(members));
  return groups;
}

}  // namespace collbench
