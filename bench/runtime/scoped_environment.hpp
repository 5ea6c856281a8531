// Environment variables set for as long as an object lives, then restored (set back to their
// previous values, or removed when they had none): NCCL takes NCCL_ALGO and NCCL_PROTO from the
// environment only, not from ncclConfig_t.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

class ScopedEnvironment {
 public:
  // Sets each NAME to VALUE; an entry whose value is nullopt leaves that variable as it is.
  explicit ScopedEnvironment(
      const std::vector<std::pair<std::string, std::optional<std::string>>>& values);
  ScopedEnvironment() = default;
  ~ScopedEnvironment();
  ScopedEnvironment(ScopedEnvironment&& other) noexcept;
  ScopedEnvironment& operator=(ScopedEnvironment&&) = delete;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  void restore() noexcept;
  struct Previous {
    std::string name;
    std::optional<std::string> value;  // nullopt: the variable was not set
  };
  std::vector<Previous> previous_;  // in the order set; restored in reverse
};

}  // namespace collbench
