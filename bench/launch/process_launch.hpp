// How a benchmark binary starts under a launcher, shared by collbench and collbench_dpstep: this
// process's launch read from its real environment, the process group when there are several
// processes, and what the console header and the report rows say about them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "launch/launch_environment.hpp"
#include "launch/process_group.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench {

// detect_launch_environment over this process's environment variables and the MPI support built
// in; `requested` is --launcher. Throws UsageError (one line).
LaunchEnvironment detect_this_launch(std::string_view requested);

// The processes of a multi-process launch (collective over all of them: MPI start, GPU choice,
// world communicator), or null when this process drives every GPU itself. A world not formed
// within `init_timeout_s` ends the process with a one-line error (ProcessGroup).
std::unique_ptr<ProcessGroup> join_processes(const LaunchEnvironment& environment,
                                             double init_timeout_s);

// What the report rows record about a multi-process launch: its mode and node count.
void record_launch(const ProcessGroup& group, RunMetadata& metadata);

// One header line: "4 processes, one GPU each, on 1 node(s) | launcher OpenMPI (mpi mode) | rank 0
// uses GPU 0" (as printed by rank 0).
std::string describe_processes(const ProcessGroup& group, const LaunchEnvironment& environment);

}  // namespace collbench
