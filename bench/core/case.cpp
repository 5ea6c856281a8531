// A case's config column and names.
#include "core/case.hpp"

#include <fmt/format.h>

#include <string>

#include "core/byte_size.hpp"
#include "core/config_column.hpp"

namespace collbench {
namespace {

// alltoallv's traffic: "a2av_spread=0.5" or "a2av_matrix=FILE", written on every such row so that
// rows of different traffic never mix.
std::string traffic_config(const Case& c) {
  return c.traffic ? c.traffic->config() : std::string();
}

}  // namespace

std::string Case::config() const {
  std::string config = algorithm.config();
  append_config(config, traffic_config(*this));
  append_config(config, communicator_config(communicator, ranks));
  append_config(config, registration_config(registration));
  return config;
}

std::string benchmark_name(const Case& c) {
  // Two choices of one implementation differ in their settings, so those are part of the name.
  const std::string config = c.config();
  const std::string algo = config.empty() ? c.algo() : fmt::format("{}:{}", c.algo(), config);
  std::string name = fmt::format("{}/{}/ranks:{}/{}/{}/root:{}/{}/bytes:{}", c.spec->name, algo,
                                 c.ranks, name_of(c.type), name_of(c.op), c.root,
                                 c.in_place ? "in_place" : "out_of_place", c.requested_bytes);
  if (c.repeat > 0) name += fmt::format("/repeat:{}", c.repeat);
  return name;
}

std::string display_name(const Case& c) {
  std::string name = fmt::format("{} {} {} {} {}r {}", c.spec->name, c.algo(), name_of(c.type),
                                 name_of(c.op), c.ranks, format_byte_size(c.bytes()));
  if (c.root >= 0) name += fmt::format(" root {}", c.root);
  if (c.in_place) name += " in-place";
  if (const std::string config = c.config(); !config.empty()) name += " " + config;
  if (c.repeat > 0) name += fmt::format(" (pass {})", c.repeat + 1);
  return name;
}

}  // namespace collbench
