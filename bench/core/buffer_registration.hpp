// How a case's buffers are registered with NCCL (--register): names, the config column's part,
// and when a mode cannot run (the NCCL version, the implementation), as pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// none: plain cudaMalloc buffers. local: cudaMalloc buffers registered with ncclCommRegister
// (nccl-tests -R 1). symmetric: ncclMemAlloc buffers registered as symmetric windows
// (ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, nccl-tests -R 2), which lets NCCL pick
// its symmetric-memory kernels.
enum class BufferRegistration { none, local, symmetric };

std::string_view name_of(BufferRegistration mode);
const std::vector<BufferRegistration>& all_buffer_registrations();
// "none", "local", "symmetric"; throws UsageError naming the text otherwise.
BufferRegistration parse_buffer_registration(std::string_view name);

// The config column's part for `mode`: "register=local", or empty for none.
std::string registration_config(BufferRegistration mode);

// Whether `mode`'s buffers come from ncclMemAlloc (cuMem memory, which NCCL maps into its peers
// for zero-copy transfers) rather than cudaMalloc (which, registered or not, NCCL does not map by
// default: NCCL_LEGACY_CUDA_REGISTER=0): both registered modes, as nccl-tests' -R 1 and -R 2. Every
// buffer taking part in a case's NCCL transfers, an algorithm's scratch included, is allocated this
// way: NCCL needs both sides of a transfer alike.
bool uses_nccl_memory(BufferRegistration mode);

// The NCCL that ncclCommWindowRegister and its symmetric kernels came with.
inline constexpr int kSymmetricRegistrationMinVersion = 22700;  // 2.27.0
// "2.28.3" from ncclGetVersion's code (major*10000 + minor*100 + patch; before 2.9,
// major*1000 + minor*100 + patch).
std::string nccl_version_text(int version_code);

// Why a case with `mode` cannot run with implementation `algorithm` on the NCCL of
// `nccl_version_code`, or empty when it can. `takes_registered_buffers`: the implementation
// moves data only through NCCL calls (AlgorithmCapabilities::registered_buffers); one that maps
// its peers' memory itself gains nothing from NCCL's registration.
std::string registration_skip_reason(BufferRegistration mode, std::string_view algorithm,
                                     bool takes_registered_buffers, int nccl_version_code);

}  // namespace collbench
