// zlib-backed input: gzread decompresses gzip files and passes plain ones through.
#include "io/text_input.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "reports/printable.hpp"

namespace collbench::replay {
namespace {

constexpr std::size_t kChunkBytes = 256 << 10;

gzFile as_gz(void* handle) {
  return static_cast<gzFile>(handle);
}

void require_regular_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw UsageError(
        fmt::format("{}: cannot be read ({})", report::printable(path), std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    throw UsageError(fmt::format("{}: is not a regular file", report::printable(path)));
  }
}

}  // namespace

TextInput::TextInput(std::string path)
    : path_(std::move(path)), chunk_(kChunkBytes), buffer_(*this), stream_(&buffer_) {
  require_regular_file(path_);
  gz_ = gzopen(path_.c_str(), "rb");
  if (gz_ == nullptr) {
    throw UsageError(
        fmt::format("{}: cannot be opened ({})", report::printable(path_), std::strerror(errno)));
  }
  gzbuffer(as_gz(gz_), kChunkBytes);
}

TextInput::~TextInput() {
  if (gz_ != nullptr) gzclose(as_gz(gz_));
}

std::size_t TextInput::read_chunk(char* into, std::size_t capacity) {
  // The frame's signal handler only records SIGINT/SIGTERM: a long import stops between chunks.
  throw_if_interrupted();
  const int read = gzread(as_gz(gz_), into, static_cast<unsigned>(capacity));
  int code = Z_OK;
  const char* message = gzerror(as_gz(gz_), &code);
  // gzread returns a cut gzip stream's data without an error; gzerror tells (Z_BUF_ERROR).
  if (read < 0 || (read == 0 && code != Z_OK)) {
    throw UsageError(fmt::format("{}: cannot be decompressed ({}{})", report::printable(path_),
                                 message != nullptr ? message : "zlib error",
                                 code == Z_BUF_ERROR ? ": cut short?" : ""));
  }
  return static_cast<std::size_t>(read);
}

TextInput::GzipBuffer::int_type TextInput::GzipBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  char* begin = owner_.chunk_.data();
  const std::size_t read = owner_.read_chunk(begin, owner_.chunk_.size());
  if (read == 0) return traits_type::eof();
  setg(begin, begin, begin + read);
  return traits_type::to_int_type(*gptr());
}

bool TextInput::GzipBuffer::append_line(std::string& line, std::size_t max_bytes) {
  while (line.size() <= max_bytes) {
    if (gptr() == egptr() && underflow() == traits_type::eof()) return false;
    const std::size_t available = static_cast<std::size_t>(egptr() - gptr());
    const void* found = std::memchr(gptr(), '\n', available);
    const std::size_t take =
        found != nullptr ? static_cast<std::size_t>(static_cast<const char*>(found) - gptr())
                         : available;
    line.append(gptr(), take);
    gbump(static_cast<int>(found != nullptr ? take + 1 : take));
    if (found != nullptr) return true;
  }
  return false;
}

bool TextInput::next_line(std::string& line) {
  line.clear();
  const bool ended = buffer_.append_line(line, kMaxLineBytes);
  if (line.size() > kMaxLineBytes) {
    throw UsageError(fmt::format("{}:{}: a line longer than {} MiB", report::printable(path_),
                                 line_number_ + 1, kMaxLineBytes >> 20));
  }
  if (!ended && line.empty()) return false;  // the end; a last line may lack its line break
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++line_number_;
  return true;
}

void TextInput::rewind() {
  if (gzrewind(as_gz(gz_)) != 0) {
    throw UsageError(fmt::format("{}: cannot be read again", report::printable(path_)));
  }
  buffer_.reset();
  stream_.clear();
  line_number_ = 0;
}

std::string read_prefix(const std::string& path, std::size_t max_bytes) {
  TextInput input(path);
  std::string prefix(max_bytes, '\0');
  std::istream& stream = input.stream();
  stream.read(prefix.data(), static_cast<std::streamsize>(max_bytes));
  prefix.resize(static_cast<std::size_t>(stream.gcount()));
  return prefix;
}

}  // namespace collbench::replay
