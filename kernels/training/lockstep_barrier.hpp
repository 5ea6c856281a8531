// A barrier across the GPUs of a data-parallel step, on a rank's compute stream: one thread raises
// the rank's count in every peer's memory and waits until every peer has raised its own as far.
// The step puts one before each backward layer, so that every rank starts a layer's GEMMs (and
// therefore the copies that follow them) at the same time, instead of drifting apart by the
// GPUs' different clocks.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "peer_flags.cuh"

namespace collbench::kernels::training {

// Per rank, one block of 1 + nranks counts in its own memory: [0] how many barriers this rank has
// entered; [1 + p] how many peer p has entered (written by p).
struct LockstepBarrier {
  std::uint32_t* own;                       // this rank's block
  std::uint32_t* peer_slot[kMaxPeerRanks];  // where this rank writes in each rank's block
  int nranks;
  int rank;
  PeerAbort abort;
};

// Enters the next barrier; the stream goes on once every rank has entered it (or the wait gave
// up: then the abort word says so, and the host reports it).
void launch_lockstep_barrier(const LockstepBarrier& barrier, cudaStream_t stream);

}  // namespace collbench::kernels::training
