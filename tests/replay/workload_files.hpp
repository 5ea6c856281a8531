// Test support: workloads written to temporary files and read back whole (tests only: the tool
// itself streams them), and a source imported in passing.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "import/source_kind.hpp"
#include "workload/communicator_table.hpp"
#include "workload/workload_records.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay::testing {

// A file under the test's temporary folder, removed when the object goes.
class TempFile {
 public:
  explicit TempFile(const std::string& name);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A folder under the test's temporary folder, removed with what it holds when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `text` to the file `name` in it; returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

// A whole file's text (gzipped files decompressed).
std::string read_whole_file(const std::string& path);

struct LoadedWorkload {
  WorkloadHeader header;
  CommunicatorTable communicators;
  std::map<int, std::vector<WorkloadOp>> ops;  // per rank, in issue order
};

LoadedWorkload load_workload(const std::string& path);

// Writes a workload from a header, communicators and ops (any order of ops: sorted by rank,
// stable).
void write_workload(const std::string& path, const WorkloadHeader& header,
                    const std::vector<Communicator>& communicators, std::vector<WorkloadOp> ops);

void import_to(const std::string& path, SourceKind kind, const std::vector<std::string>& sources,
               const ImportOptions& options = {});

// The text of `statement`'s UsageError, or "" when it throws none.
std::string usage_error_of(const std::function<void()>& statement);

}  // namespace collbench::replay::testing
