// File names as source locations name them: the last component of a path.
#pragma once

#include <string>
#include <string_view>

namespace collbench::replay {

inline std::string base_name(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace collbench::replay
