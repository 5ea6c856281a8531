// Whether an output path can be written.
#include "frame/writable_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/errors.hpp"

namespace collbench {

void check_writable(const std::string& option, const std::string& path) {
  const std::filesystem::path file(path);
  const std::filesystem::path folder =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const bool exists = ::access(path.c_str(), F_OK) == 0;
  const char* what = nullptr;
  if (exists && std::filesystem::is_directory(file)) {
    what = "is a directory";
  } else if (exists ? ::access(path.c_str(), W_OK) != 0 : ::access(folder.c_str(), W_OK) != 0) {
    what = std::strerror(errno);
  }
  if (what != nullptr) {
    throw UsageError(fmt::format("{} '{}' cannot be written: {}", option, shown_value(path), what));
  }
}

}  // namespace collbench
