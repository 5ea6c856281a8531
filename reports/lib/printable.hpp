// Untrusted text made safe to quote in a one-line message: escaped and shortened.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace collbench::report {

// How much of an offending value a message quotes.
inline constexpr std::size_t kQuotedValueChars = 60;

// `text` with every byte outside printable ASCII (and the backslash) written as \xNN or \\, so
// that no terminal escape, carriage return or binary byte reaches the terminal. When the escaped
// text exceeds `max_chars`, it is cut there (never inside an escape) and "..." is appended.
std::string printable(std::string_view text, std::size_t max_chars = kQuotedValueChars);

// Help text for a terminal: lines longer than `width` wrapped at spaces, each continuation under
// its line's description column (where the text resumes after a run of two or more spaces).
inline constexpr std::size_t kHelpWidth = 100;
std::string wrap_help(const std::string& text, std::size_t width = kHelpWidth);

}  // namespace collbench::report
