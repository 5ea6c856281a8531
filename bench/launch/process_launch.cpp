// Launch detection from the real environment, joining the process group, and its description.
#include "launch/process_launch.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "launch/mpi_bootstrap.hpp"

namespace collbench {

LaunchEnvironment detect_this_launch(std::string_view requested) {
  return detect_launch_environment([](const char* name) { return std::getenv(name); }, requested,
                                   mpi_built_in());
}

std::unique_ptr<ProcessGroup> join_processes(const LaunchEnvironment& environment,
                                             double init_timeout_s) {
  if (environment.mode == LaunchMode::single_process) return nullptr;
  return std::make_unique<ProcessGroup>(environment, init_timeout_s);
}

void record_launch(const ProcessGroup& group, RunMetadata& metadata) {
  metadata.launch_mode = std::string(name_of(group.mode()));
  metadata.nodes = group.nodes();
}

std::string describe_processes(const ProcessGroup& group, const LaunchEnvironment& environment) {
  return fmt::format(
      "{} processes, one GPU each, on {} node(s) | launcher {} ({} mode) | rank {} uses GPU {}",
      group.size(), group.nodes(), environment.launcher, name_of(group.mode()), group.rank(),
      group.device());
}

}  // namespace collbench
