// Temporary workload files for tests.
#include "workload_files.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/errors.hpp"
#include "io/text_input.hpp"
#include "workload/workload_reader.hpp"

namespace collbench::replay::testing {

TempFile::TempFile(const std::string& name) {
  const char* folder = std::getenv("TMPDIR");
  path_ = std::string(folder != nullptr && *folder != '\0' ? folder : "/tmp") + "/replay_test_" +
          std::to_string(::getpid()) + "_" + name;
}

TempFile::~TempFile() {
  std::remove(path_.c_str());
}

TempDir::TempDir() {
  const char* folder = std::getenv("TMPDIR");
  std::string pattern =
      std::string(folder != nullptr && *folder != '\0' ? folder : "/tmp") + "/replay_test_XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  if (DIR* folder = ::opendir(path_.c_str())) {
    while (const dirent* entry = ::readdir(folder)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") std::remove((path_ + "/" + name).c_str());
    }
    ::closedir(folder);
  }
  ::rmdir(path_.c_str());
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
  const std::string file = path_ + "/" + name;
  std::ofstream out(file, std::ios::binary);
  out << text;
  return file;
}

std::string read_whole_file(const std::string& path) {
  TextInput input(path);
  std::ostringstream text;
  text << input.stream().rdbuf();
  return text.str();
}

LoadedWorkload load_workload(const std::string& path) {
  WorkloadReader reader(path);
  LoadedWorkload loaded{reader.header(), reader.communicators(), {}};
  while (const WorkloadOp* op = reader.next()) loaded.ops[op->rank].push_back(*op);
  return loaded;
}

void write_workload(const std::string& path, const WorkloadHeader& header,
                    const std::vector<Communicator>& communicators, std::vector<WorkloadOp> ops) {
  std::stable_sort(ops.begin(), ops.end(),
                   [](const WorkloadOp& a, const WorkloadOp& b) { return a.rank < b.rank; });
  std::ofstream out(path);
  WorkloadWriter writer(out, path);
  writer.write_header(header);
  for (const Communicator& communicator : communicators) writer.write_communicator(communicator);
  for (const WorkloadOp& op : ops) writer.write_op(op);
  writer.finish();
}

void import_to(const std::string& path, SourceKind kind, const std::vector<std::string>& sources,
               const ImportOptions& options) {
  std::ofstream out(path);
  WorkloadWriter writer(out, path);
  import_sources(kind, sources, options, writer);
  writer.finish();
}

std::string usage_error_of(const std::function<void()>& statement) {
  try {
    statement();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace collbench::replay::testing
