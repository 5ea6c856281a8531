// Escaping and shortening of untrusted text for messages.
#include "reports/printable.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace collbench::report {

std::string printable(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const std::string piece = c == '\\'                 ? std::string("\\\\")
                              : (c < 0x20 || c >= 0x7f) ? fmt::format("\\x{:02x}", c)
                                                        : std::string(1, static_cast<char>(c));
    if (out.size() + piece.size() > max_chars) return out + "...";
    out += piece;
  }
  return out;
}

std::string wrap_help(const std::string& text, std::size_t width) {
  std::string wrapped;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    const std::size_t gap = line.find("  ", line.find_first_not_of(' '));
    const std::size_t column =
        gap == std::string::npos ? line.find_first_not_of(' ') : line.find_first_not_of(' ', gap);
    const std::string indent(column == std::string::npos || column > width / 2 ? 4 : column, ' ');
    while (line.size() > width) {
      std::size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut <= indent.size()) break;
      wrapped += line.substr(0, cut) + "\n";
      line = indent + line.substr(line.find_first_not_of(' ', cut));
    }
    wrapped += line + "\n";
  }
  return wrapped;
}

}  // namespace collbench::report
