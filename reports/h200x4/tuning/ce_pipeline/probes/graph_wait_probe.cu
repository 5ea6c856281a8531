// Does a CUDA graph's stream-memory-operation wait that has to block go on without a free SM?
// Graph: [wait flag >= 1] -> [4-byte D2D memcpy]. Raiser (plain stream): 256 MiB D2D copy, then
// write the flag. A low-priority hog kernel fills every SM for 600 us (or runs not at all).
#include "probe_common.cuh"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
int main() {
  load_batch();
  CK(cudaSetDevice(0));
  int lo, hi; CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  int sms, smem; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaFuncSetAttribute(hog, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaStream_t hogs, waiter, raiser, side, observer;
  cudaEvent_t eo;
  CK(cudaStreamCreateWithPriority(&hogs, cudaStreamNonBlocking, lo));
  CK(cudaStreamCreateWithPriority(&waiter, cudaStreamNonBlocking, hi));
  CK(cudaStreamCreateWithPriority(&raiser, cudaStreamNonBlocking, hi));
  CK(cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, lo));
  CK(cudaStreamCreateWithPriority(&observer, cudaStreamNonBlocking, hi));
  unsigned* flags; CK(cudaMalloc(&flags, 4096));
  char *a, *b; const size_t big = 256 << 20; CK(cudaMalloc(&a, big)); CK(cudaMalloc(&b, big));
  cudaEvent_t e0, e1, r0, r1, fork, join; 
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&eo)); CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&r0)); CK(cudaEventCreate(&r1));
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  for (int shape = 0; shape < 3; ++shape) {
    // 0: graph = wait -> memcpy; 1: same plus a parallel branch with the hog kernel (in the
    // graph, like the training step); 2: plain stream, no graph
    cudaGraphExec_t exec = nullptr;
    if (shape < 2) {
      cudaGraph_t g;
      CK(cudaStreamBeginCapture(waiter, cudaStreamCaptureModeThreadLocal));
      if (shape == 1) {
        CK(cudaEventRecord(fork, waiter)); CK(cudaStreamWaitEvent(side, fork));
        hog<<<sms, 1024, smem, side>>>(600000, nullptr);
        CK(cudaEventRecord(join, side));
      }
      memop(waiter, flags, 1, true);
      CK(cudaMemcpyAsync(flags + 16, flags + 32, 4, cudaMemcpyDeviceToDevice, waiter));
      memop(waiter, flags + 48, 1, false);
      if (shape == 1) CK(cudaStreamWaitEvent(waiter, join));
      CK(cudaStreamEndCapture(waiter, &g));
      CK(cudaGraphInstantiateWithFlags(&exec, g, cudaGraphInstantiateFlagUseNodePriority));
      CK(cudaGraphDestroy(g));
    }
    for (int with_hog = 0; with_hog < 2; ++with_hog) {
      if (shape == 1 && !with_hog) continue;
      std::vector<float> wake, copy;
      for (int rep = 0; rep < 10; ++rep) {
        CK(cudaMemset(flags, 0, 256)); CK(cudaDeviceSynchronize());
        if (with_hog && shape != 1) hog<<<sms, 1024, smem, hogs>>>(600000, nullptr);
        CK(cudaEventRecord(e0, waiter));
        if (shape < 2) CK(cudaGraphLaunch(exec, waiter));
        else { memop(waiter, flags, 1, true); CK(cudaMemcpyAsync(flags + 16, flags + 32, 4, cudaMemcpyDeviceToDevice, waiter)); memop(waiter, flags + 48, 1, false); }
        memop(observer, flags + 48, 1, true); CK(cudaEventRecord(eo, observer));
        if (shape == 1) {
          // the graph's end waits for its hog; time the wake by the memcpy's effect instead: not
          // observable from the host without SMs, so report whole-graph time only
        }
        CK(cudaEventRecord(e1, waiter));
        CK(cudaEventRecord(r0, raiser));
        CK(cudaMemcpyAsync(a, b, big, cudaMemcpyDeviceToDevice, raiser));
        memop(raiser, flags, 1, false);
        CK(cudaEventRecord(r1, raiser));
        CK(cudaDeviceSynchronize());
        float w, c; CK(cudaEventElapsedTime(&w, r1, eo)); CK(cudaEventElapsedTime(&c, r0, r1));
        if (rep >= 2) { wake.push_back(w * 1000); copy.push_back(c * 1000); }
      }
      std::sort(wake.begin(), wake.end()); std::sort(copy.begin(), copy.end());
      const char* names[] = {"graph wait->memcpy", "graph with hog branch", "stream wait->memcpy"};
      printf("%-24s hog %-3s: branch done after raise p50 %7.1f us (min %7.1f max %7.1f); raiser's copy+write %7.1f us\n",
             names[shape], with_hog ? "yes" : "no", wake[wake.size()/2], wake.front(), wake.back(), copy[copy.size()/2]);
    }
    if (exec) CK(cudaGraphExecDestroy(exec));
  }
  return 0;
}
