// read_text_file: stat, refuse what is not a regular file or too large, then read at most
// max_bytes + 1 bytes; a gzip file is inflated, again to at most max_bytes.
#include "reports/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace collbench::report {
namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(std::uint64_t bytes) {
  if (bytes < (1 << 20)) return fmt::format("{} bytes", bytes);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
}

void refuse_unless_regular_and_small(const struct stat& info, std::uint64_t max_bytes) {
  if (!S_ISREG(info.st_mode)) {
    throw TextFileError(fmt::format("{}, not a regular file", file_kind(info.st_mode)));
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    throw TextFileError(fmt::format("too large: {} (the limit is {})",
                                    size_text(static_cast<std::uint64_t>(info.st_size)),
                                    size_text(max_bytes)));
  }
}

struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// An inflate stream for gzip, ended however the inflating ends.
struct GzipInflater {
  z_stream stream{};
  GzipInflater() {
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw TextFileError("cannot inflate: zlib");
  }
  ~GzipInflater() { inflateEnd(&stream); }
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;
};

// The gzip members of `compressed` inflated, refusing more than `max_bytes` of text.
std::string inflated(const std::string& compressed, std::uint64_t max_bytes) {
  GzipInflater inflater;
  z_stream& stream = inflater.stream;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string text;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status != Z_STREAM_END || stream.avail_in > 0) {
    if (status == Z_STREAM_END) inflateReset(&stream);  // the next member of a concatenated file
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) {
      throw TextFileError(fmt::format("not a whole gzip file ({})",
                                      stream.msg != nullptr ? stream.msg : "cut off"));
    }
    text.append(buffer, sizeof(buffer) - stream.avail_out);
    if (text.size() > max_bytes) {
      throw TextFileError(fmt::format("too large: inflates beyond {}", size_text(max_bytes)));
    }
    if (status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0) {
      throw TextFileError("not a whole gzip file (cut off)");
    }
  }
  return text;
}

}  // namespace

std::string read_text_file(const std::string& path, std::uint64_t max_bytes) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw TextFileError(fmt::format("cannot open: {}", std::strerror(errno)));
  }
  refuse_unless_regular_and_small(info, max_bytes);
  // O_NONBLOCK: should the path have been replaced by a FIFO since stat, open must not block.
  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) throw TextFileError(fmt::format("cannot open: {}", std::strerror(errno)));
  if (::fstat(file.fd, &info) != 0) {
    throw TextFileError(fmt::format("cannot read: {}", std::strerror(errno)));
  }
  refuse_unless_regular_and_small(info, max_bytes);

  std::string text;
  char buffer[1 << 16];
  while (text.size() <= max_bytes) {
    const std::size_t wanted = std::min<std::uint64_t>(sizeof(buffer), max_bytes + 1 - text.size());
    const ssize_t got = ::read(file.fd, buffer, wanted);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw TextFileError(fmt::format("cannot read: {}", std::strerror(errno)));
    if (got == 0) return is_gzip(text) ? inflated(text, max_bytes) : text;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  throw TextFileError(
      fmt::format("too large: grew beyond {} while being read", size_text(max_bytes)));
}

}  // namespace collbench::report
