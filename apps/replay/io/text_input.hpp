// Reads an input file, gzipped or not (zlib reads plain files as they are), as an std::istream
// or line by line with line numbers: NCCL logs, profiler traces, dumps and workloads alike.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace collbench::replay {

// The longest line read: a workload op line is a few hundred bytes; an alltoallv on many ranks a
// few hundred KiB. Longer is no line of ours, and must not exhaust memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;

class TextInput {
 public:
  // Opens a regular file (devices, FIFOs and folders are refused before they are opened);
  // throws UsageError naming the path and the reason.
  explicit TextInput(std::string path);
  ~TextInput();
  TextInput(const TextInput&) = delete;
  TextInput& operator=(const TextInput&) = delete;

  // The next line without its line break; false at the end. Throws UsageError for a line over
  // kMaxLineBytes or a broken gzip stream.
  bool next_line(std::string& line);
  std::uint64_t line_number() const { return line_number_; }

  // The whole decompressed content as a stream (for a JSON parser); not mixed with next_line.
  std::istream& stream() { return stream_; }
  const std::string& path() const { return path_; }
  // Back to the start, for a second pass.
  void rewind();

 private:
  class GzipBuffer : public std::streambuf {
   public:
    explicit GzipBuffer(TextInput& owner) : owner_(owner) {}
    // Appends bytes up to the next line break to `line`; true when it found one (consumed).
    // False at the end of the input or after max_bytes more bytes (then line holds them).
    bool append_line(std::string& line, std::size_t max_bytes);
    void reset() { setg(nullptr, nullptr, nullptr); }

   protected:
    int_type underflow() override;

   private:
    TextInput& owner_;
  };

  std::size_t read_chunk(char* into, std::size_t capacity);

  std::string path_;
  void* gz_ = nullptr;  // gzFile, kept out of this header
  std::vector<char> chunk_;
  GzipBuffer buffer_;
  std::istream stream_;
  std::uint64_t line_number_ = 0;
};

// The first bytes of a file, decompressed (for telling sources apart).
std::string read_prefix(const std::string& path, std::size_t max_bytes);

}  // namespace collbench::replay
