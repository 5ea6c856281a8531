// Which stream operations need a free SM? A low-priority "hog" kernel fills every SM for
// ~kHogUs; a high-priority stream then times one operation between two events.
#include "probe_common.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

__global__ void tiny(unsigned* p) { if (threadIdx.x == 0) *p = 0; }


int main(int argc, char** argv) {
  const double hog_us = 300;
  load_batch();
  int ndev; CK(cudaGetDeviceCount(&ndev));
  CK(cudaSetDevice(0));
  if (ndev > 1) { cudaDeviceEnablePeerAccess(1, 0); }
  int sms, smem; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaFuncSetAttribute(hog, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int lo, hi; CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  cudaStream_t slow, fast; CK(cudaStreamCreateWithPriority(&slow, cudaStreamNonBlocking, lo));
  CK(cudaStreamCreateWithPriority(&fast, cudaStreamNonBlocking, hi));
  unsigned *flags, *started; CK(cudaMalloc(&flags, 4096)); CK(cudaMalloc(&started, 4));
  char *a, *b, *peer = nullptr; size_t big = 8 << 20; CK(cudaMalloc(&a, big)); CK(cudaMalloc(&b, big));
  if (ndev > 1) { CK(cudaSetDevice(1)); CK(cudaMalloc(&peer, big)); CK(cudaSetDevice(0)); }
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const char* names[] = {"nothing", "memcpy D2D 8 B", "memcpy D2D 8 MiB", "memset 8 B", "memop write", "memop write+wait", "tiny kernel", "memcpy P2P 8 B", "memcpy P2P 8 MiB"};
  const int kinds = ndev > 1 ? 9 : 7;
  for (int graph = 0; graph < 2; ++graph) {
    for (int k = 0; k < kinds; ++k) {
      auto op = [&](cudaStream_t s) {
        switch (k) {
          case 1: CK(cudaMemcpyAsync(flags, flags + 64, 8, cudaMemcpyDeviceToDevice, s)); break;
          case 2: CK(cudaMemcpyAsync(a, b, big, cudaMemcpyDeviceToDevice, s)); break;
          case 3: CK(cudaMemsetAsync(flags, 0, 8, s)); break;
          case 4: memop(s, flags + 128, 1, false); break;
          case 5: memop(s, flags + 256, 1, false); memop(s, flags + 256, 1, true); break;
          case 6: tiny<<<1, 32, 0, s>>>(flags + 512); break;
          case 7: CK(cudaMemcpyAsync(peer, flags, 8, cudaMemcpyDefault, s)); break;
          case 8: CK(cudaMemcpyAsync(peer, a, big, cudaMemcpyDefault, s)); break;
        }
      };
      cudaGraphExec_t exec = nullptr;
      if (graph) {
        cudaGraph_t g; CK(cudaStreamBeginCapture(fast, cudaStreamCaptureModeThreadLocal));
        op(fast);
        CK(cudaStreamEndCapture(fast, &g)); CK(cudaGraphInstantiate(&exec, g, 0)); CK(cudaGraphDestroy(g));
      }
      std::vector<float> hogged, alone;
      for (int rep = 0; rep < 12; ++rep) {
        for (int with_hog = 0; with_hog < 2; ++with_hog) {
          // per-rep reset of the wait flag so write+wait passes only by its own write
          CK(cudaMemsetAsync(flags + 256, 0, 4, fast)); CK(cudaMemsetAsync(started, 0, 4, fast));
          CK(cudaStreamSynchronize(fast));
          if (with_hog) {
            hog<<<sms, 1024, smem, slow>>>((unsigned long long)(hog_us * 1000), started);
            memop(fast, started, 1, true);
          }
          if (graph) { CK(cudaEventRecord(e0, fast)); CK(cudaGraphLaunch(exec, fast)); CK(cudaEventRecord(e1, fast)); }
          else { CK(cudaEventRecord(e0, fast)); op(fast); CK(cudaEventRecord(e1, fast)); }
          CK(cudaDeviceSynchronize());
          float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
          if (rep >= 2) (with_hog ? hogged : alone).push_back(ms * 1000);
        }
      }
      std::sort(hogged.begin(), hogged.end()); std::sort(alone.begin(), alone.end());
      printf("%-6s %-20s alone p50 %7.1f us   beside a %3.0f us SM hog p50 %7.1f us (min %7.1f max %7.1f)\n",
             graph ? "graph" : "stream", names[k], alone[alone.size() / 2], hog_us,
             hogged[hogged.size() / 2], hogged.front(), hogged.back());
      if (exec) CK(cudaGraphExecDestroy(exec));
    }
  }
  return 0;
}
