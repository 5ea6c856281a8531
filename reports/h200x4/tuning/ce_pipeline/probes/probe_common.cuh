// What the three probes share: error check, a kernel that holds every SM for a while, and stream
// memory operations through the driver's cuStreamBatchMemOp.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s line %d\n", #x, cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

__device__ inline unsigned long long now_ns() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
// Launched as <<<SMs, 1024, max dynamic shared memory>>>: one block per SM, each spinning `ns`.
// `started` (may be null) is raised by block 0.
__global__ void hog(unsigned long long ns, volatile unsigned* started) {
  extern __shared__ char smem[];
  if (started && threadIdx.x == 0 && blockIdx.x == 0) *started = 1;
  unsigned long long t0 = now_ns();
  while (now_ns() - t0 < ns) { smem[threadIdx.x] = 1; }
}

typedef CUresult (*BatchFn)(CUstream, unsigned, CUstreamBatchMemOpParams*, unsigned);
static BatchFn batch;
static void load_batch() {
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuStreamBatchMemOp", (void**)&batch, 12000, cudaEnableDefault, &q));
}
// A wait until *addr >= v, or a write of v (fenced unless wflags says otherwise).
static void memop(cudaStream_t s, unsigned* addr, unsigned v, bool wait, unsigned wflags = CU_STREAM_WRITE_VALUE_DEFAULT) {
  CUstreamBatchMemOpParams op = {};
  if (wait) { op.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32; op.waitValue.address = (CUdeviceptr)addr; op.waitValue.value = v; op.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ; }
  else { op.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32; op.writeValue.address = (CUdeviceptr)addr; op.writeValue.value = v; op.writeValue.flags = wflags; }
  CUresult r = batch(s, 1, &op, 0); if (r) { printf("memop %d\n", r); exit(1); }
}
