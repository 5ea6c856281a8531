// CB_HOST_DEVICE: functions that the CUDA kernels and the CPU code (references, tests) share are
// __host__ __device__ under nvcc and plain functions elsewhere.
#pragma once

#if defined(__CUDACC__)
#define CB_HOST_DEVICE __host__ __device__
#else
#define CB_HOST_DEVICE
#endif
