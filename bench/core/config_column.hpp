// The CSV config column: "key=value" parts from several contributors (an algorithm's settings,
// alltoallv's traffic, the communicators, the registration), ';' apart.
#pragma once

#include <string>

namespace collbench {

// Appends `part` to `config` after a ';'; an empty part is left out.
inline void append_config(std::string& config, const std::string& part) {
  if (part.empty()) return;
  if (!config.empty()) config += ';';
  config += part;
}

}  // namespace collbench
