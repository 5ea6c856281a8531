// Test-only fault: a kernel that holds most of a GPU's SMs until the host says stop, so that
// whatever else runs there (NCCL's kernels, a copy) gets the SMs left over: a slow GPU on demand.
#pragma once

#include <cuda_runtime.h>

namespace collbench::kernels {

// Launches `blocks` blocks on `stream`, each taking a whole SM (the largest shared memory a block
// may have, so nothing else fits beside it), spinning until `*stop` (host-mapped memory) turns
// non-zero. Returns the launch's status.
cudaError_t launch_sm_hog(int blocks, const volatile int* stop, cudaStream_t stream);

}  // namespace collbench::kernels
