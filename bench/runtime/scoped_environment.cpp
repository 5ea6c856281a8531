// Setting and restoring environment variables.
#include "runtime/scoped_environment.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace collbench {
namespace {

// setenv/unsetenv change the process's environment; callers do it while no thread of theirs
// reads it (before communicators and their worker threads exist, after they are gone).
void set_variable(const std::string& name, const std::optional<std::string>& value) {
  const int status = value ? setenv(name.c_str(), value->c_str(), 1) : unsetenv(name.c_str());
  if (status != 0) {
    throw std::runtime_error(
        fmt::format("cannot set environment variable {}: {}", name, std::strerror(errno)));
  }
}

}  // namespace

ScopedEnvironment::ScopedEnvironment(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& values) {
  try {
    for (const auto& [name, value] : values) {
      if (!value) continue;
      const char* before = std::getenv(name.c_str());
      previous_.push_back({name, before ? std::optional<std::string>(before) : std::nullopt});
      set_variable(name, value);
    }
  } catch (...) {
    restore();
    throw;
  }
}

ScopedEnvironment::ScopedEnvironment(ScopedEnvironment&& other) noexcept
    : previous_(std::move(other.previous_)) {
  other.previous_.clear();
}

ScopedEnvironment::~ScopedEnvironment() {
  restore();
}

void ScopedEnvironment::restore() noexcept {
  for (auto it = previous_.rbegin(); it != previous_.rend(); ++it) {
    const int status =
        it->value ? setenv(it->name.c_str(), it->value->c_str(), 1) : unsetenv(it->name.c_str());
    if (status != 0)
      std::fprintf(stderr, "collbench: warning: cannot restore %s\n", it->name.c_str());
  }
  previous_.clear();
}

}  // namespace collbench
