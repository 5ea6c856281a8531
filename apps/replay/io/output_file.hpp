// An output written beside its final path and renamed over it only when complete, so that a
// command refused halfway (bad input found late) leaves no half-written workload behind; or a
// temporary file, removed at the end (a workload made in passing to be checked).
#pragma once

#include <fstream>
#include <string>

namespace collbench::replay {

class OutputFile {
 public:
  // Throws UsageError naming `path` when its folder cannot take the file.
  explicit OutputFile(std::string path);
  // A temporary file under $TMPDIR (or /tmp), removed by the destructor.
  static OutputFile temporary();
  ~OutputFile();
  OutputFile(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  OutputFile& operator=(OutputFile&&) = delete;

  std::ofstream& stream() { return stream_; }
  // Where it is being written (readable once the stream is flushed).
  const std::string& writing_path() const { return writing_path_; }
  const std::string& path() const { return path_; }
  // Closes and moves it to its path (nothing for a temporary); throws UsageError on failure.
  void commit();

 private:
  OutputFile(std::string path, std::string writing_path, bool keep);

  std::string path_;
  std::string writing_path_;
  bool keep_ = true;  // false: a temporary
  bool committed_ = false;
  std::ofstream stream_;
};

}  // namespace collbench::replay
