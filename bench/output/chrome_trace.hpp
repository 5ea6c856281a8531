// Writes the timed iterations of a sweep as a Chrome trace (JSON Trace Event Format), for
// chrome://tracing and Perfetto: one process per rank (its GPU in the name), one complete event
// ("ph":"X") per timed iteration, cases laid one after another on a common timeline.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

// Timeline: iteration times come in per rank, as offsets (us) from the case's first event on
// that rank. Each case is placed at a cursor: its events go at cursor + offset, and the cursor
// then moves past the case's latest end on any rank plus kCaseGapUs. Cases therefore never
// overlap, the first case starts at 0, and the gaps between cases are not real time (the trace
// shows GPU work of the timed iterations only, not set-up, warm-up or checks).
//
// File: the file is valid JSON after every add_case() call. It is written as a stream: the
// header, the events so far, and a closing "]}" trailer. Each add_case() seeks back over the
// trailer, appends the case's events and writes the trailer again, then flushes. A run that
// stops half-way (error, timeout, Ctrl-C, even a crash between cases) leaves a valid trace of
// the cases measured so far; the cost per case is proportional to that case's events only.
// Not thread-safe: call it from one thread (the runner's, after a case's times are collected).
class ChromeTraceWriter {
 public:
  static constexpr double kCaseGapUs = 10.0;

  // Creates (truncates) `path` and writes an empty, valid trace. Throws std::runtime_error naming
  // the path when it cannot be written.
  explicit ChromeTraceWriter(const std::string& path);
  ~ChromeTraceWriter();  // close(), reporting rather than throwing a failure
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  // Adds one rank's timed iterations of one case. Calls for the ranks of one case come one after
  // another with the same `case_name`; a call with another name, or for a rank the current case
  // already has, starts the next case. `args` go into every event's "args" (numbers written as
  // JSON numbers), next to "iteration" (0-based). `stream` becomes the event's tid.
  // Throws std::invalid_argument when the vectors differ in length or hold negative or
  // non-finite values, std::runtime_error when the file cannot be written or is closed.
  void add_case(const std::string& case_name, int rank, int device,
                const std::vector<double>& iteration_start_us,
                const std::vector<double>& iteration_duration_us,
                const std::map<std::string, std::string>& args, int stream = 0);

  // The file is already complete after every add_case(); flush() only forces it to the OS.
  void flush();
  // Writes the final trailer and closes the file; add_case() afterwards throws. Idempotent.
  void close();

  const std::string& path() const { return path_; }
  std::size_t event_count() const { return event_count_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  void append(const std::string& events_text);

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  long trailer_offset_ = 0;  // where the closing "]}" starts; the next events overwrite it
  std::size_t event_count_ = 0;

  // Timeline state (see the class comment).
  double cursor_us_ = 0;    // where the current case starts
  double case_end_us_ = 0;  // latest end of the current case so far
  std::string current_case_;
  std::set<int> current_case_ranks_;
  bool have_case_ = false;
  std::set<int> named_ranks_;                    // ranks whose process metadata is written
  std::set<std::pair<int, int>> named_streams_;  // (rank, stream) with thread metadata written
};

}  // namespace collbench
