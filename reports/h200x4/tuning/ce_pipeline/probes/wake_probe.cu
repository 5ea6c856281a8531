// How long after a flag is raised does a stream waiting on it (stream memory operation) go on,
// with and without a kernel filling every SM? Raiser: a copy of 256 MiB then the raise, on
// another stream (same GPU, or the peer GPU raising into our memory).
#include "probe_common.cuh"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>


int main() {
  load_batch();
  int ndev; CK(cudaGetDeviceCount(&ndev));
  int lo, hi; CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  int sms, smem; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  cudaStream_t hogs[2], waiter, raiser_local, raiser_peer;
  char *src[2], *dst[2];
  unsigned *flags, *ones;
  const size_t big = 256 << 20;
  for (int d = 0; d < std::min(ndev, 2); ++d) {
    CK(cudaSetDevice(d));
    CK(cudaFuncSetAttribute(hog, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaStreamCreateWithPriority(&hogs[d], cudaStreamNonBlocking, lo));
    CK(cudaMalloc(&src[d], big)); CK(cudaMalloc(&dst[d], big));
    if (ndev > 1) cudaDeviceEnablePeerAccess(1 - d, 0);
  }
  CK(cudaSetDevice(0));
  CK(cudaMalloc(&flags, 4096)); CK(cudaMalloc(&ones, 64)); CK(cudaMemset(ones, 1, 64));
  CK(cudaStreamCreateWithPriority(&waiter, cudaStreamNonBlocking, hi));
  CK(cudaStreamCreateWithPriority(&raiser_local, cudaStreamNonBlocking, hi));
  if (ndev > 1) { CK(cudaSetDevice(1)); CK(cudaStreamCreateWithPriority(&raiser_peer, cudaStreamNonBlocking, hi)); CK(cudaSetDevice(0)); }
  cudaEvent_t e_wait, e_raise, e_w0, e_c0, e_c1;
  CK(cudaEventCreate(&e_wait)); CK(cudaEventCreate(&e_w0));
  const char* how[] = {"memop write (fenced)", "memop write (no fence)", "memcpy of a ones word"};
  for (int peer = 0; peer < (ndev > 1 ? 2 : 1); ++peer) {
    int rdev = peer ? 1 : 0;
    cudaStream_t raiser = peer ? raiser_peer : raiser_local;
    CK(cudaSetDevice(rdev)); CK(cudaEventCreate(&e_raise)); CK(cudaEventCreate(&e_c0)); CK(cudaEventCreate(&e_c1)); CK(cudaSetDevice(0));
    for (int h = 0; h < 3; h += 2) {
      for (int hogmode = 0; hogmode < 3; ++hogmode) {  // none, hog on waiter's GPU, hog on both
        std::vector<float> lat;
        for (int rep = 0; rep < 12; ++rep) {
          CK(cudaMemset(flags, 0, 64)); CK(cudaDeviceSynchronize());
          if (peer) { CK(cudaSetDevice(1)); CK(cudaDeviceSynchronize()); CK(cudaSetDevice(0)); }
          if (hogmode >= 1) hog<<<sms, 1024, smem, hogs[0]>>>(2000000, nullptr);
          if (hogmode == 2 && peer) { CK(cudaSetDevice(1)); hog<<<sms, 1024, smem, hogs[1]>>>(2000000, nullptr); CK(cudaSetDevice(0)); }
          CK(cudaEventRecord(e_w0, waiter));
          memop(waiter, flags, 1, true);
          CK(cudaEventRecord(e_wait, waiter));
          CK(cudaSetDevice(rdev));
          CK(cudaEventRecord(e_c0, raiser));
          CK(cudaMemcpyAsync(dst[rdev], src[rdev], big, cudaMemcpyDeviceToDevice, raiser));
          CK(cudaEventRecord(e_c1, raiser));
          if (h == 0) memop(raiser, flags, 1, false);
          else if (h == 1) memop(raiser, flags, 1, false, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER);
          else CK(cudaMemcpyAsync(flags, ones, 4, cudaMemcpyDefault, raiser));
          CK(cudaEventRecord(e_raise, raiser));
          CK(cudaSetDevice(0));
          CK(cudaDeviceSynchronize());
          if (peer) { CK(cudaSetDevice(1)); CK(cudaDeviceSynchronize()); CK(cudaSetDevice(0)); }
          // events of two devices cannot be compared: the waiter's whole wait minus the copy's time
          float waited, copied;
          CK(cudaEventElapsedTime(&waited, e_w0, e_wait));
          CK(cudaEventElapsedTime(&copied, e_c0, e_c1));
          float ms = waited - copied;
          if (rep >= 2) lat.push_back(ms * 1000);
        }
        std::sort(lat.begin(), lat.end());
        const char* hn[] = {"no hog", "hog on waiter GPU", "hog on both GPUs"};
        printf("raiser %-5s %-24s %-18s wake after raise: p50 %7.1f us min %7.1f max %7.1f\n", peer ? "peer" : "local", how[h], hn[hogmode], lat[lat.size()/2], lat.front(), lat.back());
      }
    }
  }
  return 0;
}
