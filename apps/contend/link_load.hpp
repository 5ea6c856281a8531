// --link-load: peer copies from one GPU to another (and back), keeping that NVLink direction
// busy until the session stops.
#pragma once

#include "contend_options.hpp"
#include "load_session.hpp"

namespace collbench::contend {

void run_link_load(const LinkLoadOptions& options, LoadSession& session);

}  // namespace collbench::contend
