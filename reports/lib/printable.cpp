// Escaping and shortening of untrusted text for messages.
#include "printable.hpp"

#include <fmt/format.h>

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

}  // namespace collbench::report
