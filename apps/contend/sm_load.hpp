// --sm-load: another process's compute on one GPU, bf16 GEMMs through cuBLAS or the SM spin
// kernel, looped until the session stops.
#pragma once

#include "contend_options.hpp"
#include "load_session.hpp"

namespace collbench::contend {

void run_sm_load(const SmLoadOptions& options, LoadSession& session);

}  // namespace collbench::contend
