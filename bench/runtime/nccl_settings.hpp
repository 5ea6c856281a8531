// CommunicatorSettings as NCCL takes them: NCCL_ALGO and NCCL_PROTO in the environment (NCCL has
// no ncclConfig_t field for them), the CTA limit in ncclConfig_t.
#pragma once

#include <nccl.h>

#include <optional>

#include "core/communicator_settings.hpp"
#include "runtime/scoped_environment.hpp"

namespace collbench {

// NCCL_ALGO and NCCL_PROTO set to the settings' choices while the object lives; a setting left
// to NCCL leaves its variable as the user set it (or unset).
ScopedEnvironment nccl_environment(const CommunicatorSettings& settings);

// NCCL_CONFIG_INITIALIZER with the settings' fields, or nothing when every field is NCCL's default
// (communicators are then made exactly as without settings).
std::optional<ncclConfig_t> nccl_config(const CommunicatorSettings& settings);

}  // namespace collbench
