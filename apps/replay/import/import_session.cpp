// Import bookkeeping shared by the importers.
#include "import/import_session.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "workload/input_error.hpp"

namespace collbench::replay {

ImportSession::ImportSession(std::string source_kind, std::vector<std::string> files) {
  header_.source = std::move(source_kind);
  header_.source_files = std::move(files);
}

int ImportSession::communicator(const std::string& key, const std::vector<int>& ranks,
                                const std::vector<std::string>& names, const std::string& where) {
  const auto found = communicator_ids_.find(key);
  if (found == communicator_ids_.end()) {
    const int id = communicators_.count();
    communicators_.add({id, ranks, names});
    communicator_ids_.emplace(key, id);
    return id;
  }
  if (communicators_.at(found->second).ranks != ranks) {
    throw_bad_input(where, fmt::format("{} has ranks {} here, {} elsewhere", show_value(key),
                                       fmt::join(ranks, ","),
                                       fmt::join(communicators_.at(found->second).ranks, ",")));
  }
  return found->second;
}

std::optional<int> ImportSession::find_communicator(const std::string& key) const {
  const auto found = communicator_ids_.find(key);
  if (found == communicator_ids_.end()) return std::nullopt;
  return found->second;
}

void ImportSession::assume(const std::string& note) {
  auto& notes = header_.assumptions;
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
}

void ImportSession::observe_time_ns(std::int64_t instant_ns) {
  if (!earliest_ns_ || instant_ns < *earliest_ns_) earliest_ns_ = instant_ns;
}

void ImportSession::observe_times(const SourceTimes& times) {
  for (const auto& instant : {times.issue_ns, times.start_ns}) {
    if (instant) observe_time_ns(*instant);
  }
}

void ImportSession::write_preamble(WorkloadWriter& writer) {
  header_.time_origin_ns = earliest_ns_;
  writer.write_header(header_);
  for (const Communicator& communicator : communicators_.all())
    writer.write_communicator(communicator);
}

}  // namespace collbench::replay
