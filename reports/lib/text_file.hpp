// Reading a whole input file safely: regular files only, with a size cap, one-line errors.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace collbench::report {

// Larger than any report collbench writes (a full sweep is a few MiB) by far, small enough
// that a wrong path cannot exhaust memory.
inline constexpr std::uint64_t kMaxReportBytes = std::uint64_t{256} << 20;

// What is wrong with a file, without the path (callers name it their way).
class TextFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The contents of the regular file at `path`. Devices, FIFOs, sockets and directories are refused
// before they are opened (opening some devices has effects; reading /dev/zero never ends), and so
// is a file above `max_bytes`, measured with stat and enforced while reading (it may grow). A
// gzip file (by its first two bytes, whatever its name) is read inflated, its text also capped
// at `max_bytes`: reports and sample files may be kept gzipped.
std::string read_text_file(const std::string& path, std::uint64_t max_bytes);

}  // namespace collbench::report
