// Small text helpers that the command-line rules (split rules, traffic matrices) share.
#pragma once

#include <cctype>
#include <string_view>

namespace collbench {

inline bool is_blank(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// `text` without leading and trailing blanks (spaces, tabs, line ends).
inline std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace collbench
