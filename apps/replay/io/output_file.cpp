// Outputs written under a temporary name.
#include "io/output_file.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/errors.hpp"
#include "reports/printable.hpp"

namespace collbench::replay {

OutputFile::OutputFile(std::string path)
    : OutputFile(path, fmt::format("{}.tmp{}", path, ::getpid()), true) {}

OutputFile::OutputFile(std::string path, std::string writing_path, bool keep)
    : path_(std::move(path)), writing_path_(std::move(writing_path)), keep_(keep) {
  stream_.open(writing_path_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!stream_) {
    throw UsageError(
        fmt::format("{}: cannot be written ({})", report::printable(path_), std::strerror(errno)));
  }
}

OutputFile OutputFile::temporary() {
  const char* folder = std::getenv("TMPDIR");
  std::string pattern = fmt::format("{}/collbench_replay.XXXXXX",
                                    folder != nullptr && *folder != '\0' ? folder : "/tmp");
  const int descriptor = ::mkstemp(pattern.data());
  if (descriptor < 0)
    throw UsageError(fmt::format("no temporary file in {} ({})", pattern, std::strerror(errno)));
  ::close(descriptor);
  return OutputFile(pattern, pattern, false);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      writing_path_(std::move(other.writing_path_)),
      keep_(other.keep_),
      committed_(other.committed_),
      stream_(std::move(other.stream_)) {
  other.committed_ = true;  // the moved-from object removes nothing
}

OutputFile::~OutputFile() {
  if (committed_ && keep_) return;
  stream_.close();
  std::remove(writing_path_.c_str());
}

void OutputFile::commit() {
  stream_.close();
  if (!stream_) throw UsageError(fmt::format("{}: cannot be written", report::printable(path_)));
  if (keep_ && std::rename(writing_path_.c_str(), path_.c_str()) != 0) {
    throw UsageError(
        fmt::format("{}: cannot be written ({})", report::printable(path_), std::strerror(errno)));
  }
  committed_ = true;
}

}  // namespace collbench::replay
