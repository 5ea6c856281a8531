// The ring all-reduce schedule: how the buffer is cut into chunks, slices and parts, and what
// every rank reads, reduces, stores where, waits for and publishes at each step, for both ring
// protocols (pull: remote loads; push: remote stores into staging slots). The GPU kernels (ring,
// ring_sendrecv) run this code and the CPU test simulates n virtual ranks with it.
#pragma once

#include <cstdint>

#include "host_device.hpp"
#include "peer_flags.cuh"  // count_reached

namespace collbench::kernels {

// Elements [begin, end) of the buffer.
struct ElementRange {
  std::uint64_t begin;
  std::uint64_t end;
};

// How one all-reduce is cut up; identical on every rank. The buffer is split into `nranks`
// chunks, each chunk into `slices` slices (the pipelining unit), each slice into `parts` parts
// (one per CTA). Every boundary falls on a whole 16-byte line except the buffer's end, so all
// but the very last elements move as 16-byte vectors.
struct RingGeometry {
  std::uint64_t count;  // elements in the buffer
  int nranks;
  int slices;
  int parts;
  int line_elements;  // elements per 16-byte line: 16 / element size
};

// Lines of the buffer, the last one possibly partial.
CB_HOST_DEVICE inline std::uint64_t ring_line_count(const RingGeometry& g) {
  return (g.count + g.line_elements - 1) / g.line_elements;
}

// Piece `index` of `pieces` near-equal pieces of `lines` lines: [begin, end) in lines.
CB_HOST_DEVICE inline std::uint64_t split_point(std::uint64_t lines, std::uint64_t pieces,
                                                std::uint64_t index) {
  return lines * index / pieces;
}

// Lines [first, last) as elements, clipped to the buffer.
CB_HOST_DEVICE inline ElementRange lines_to_elements(const RingGeometry& g, std::uint64_t first,
                                                     std::uint64_t last) {
  const std::uint64_t begin = first * g.line_elements;
  const std::uint64_t end = last * g.line_elements;
  return {begin < g.count ? begin : g.count, end < g.count ? end : g.count};
}

// Chunk `chunk` (0 .. nranks-1).
CB_HOST_DEVICE inline ElementRange ring_chunk(const RingGeometry& g, int chunk) {
  const std::uint64_t lines = ring_line_count(g);
  return lines_to_elements(g, split_point(lines, g.nranks, chunk),
                           split_point(lines, g.nranks, chunk + 1));
}

// The piece of chunk `chunk` that CTA `part` moves in slice `slice`. Every rank cuts every chunk
// the same way, so a piece's whole history (read, reduced, published, read again) runs through
// the same part index on every rank: parts never wait for one another.
CB_HOST_DEVICE inline ElementRange ring_piece(const RingGeometry& g, int chunk, int slice,
                                              int part) {
  const std::uint64_t lines = ring_line_count(g);
  const std::uint64_t chunk_first = split_point(lines, g.nranks, chunk);
  const std::uint64_t chunk_lines = split_point(lines, g.nranks, chunk + 1) - chunk_first;
  const std::uint64_t pieces = static_cast<std::uint64_t>(g.slices) * g.parts;
  const std::uint64_t piece = static_cast<std::uint64_t>(slice) * g.parts + part;
  return lines_to_elements(g, chunk_first + split_point(chunk_lines, pieces, piece),
                           chunk_first + split_point(chunk_lines, pieces, piece + 1));
}

// n-1 reduce-scatter steps, then n-1 all-gather steps.
CB_HOST_DEVICE inline int ring_step_count(int nranks) {
  return 2 * (nranks - 1);
}
CB_HOST_DEVICE inline int ring_task_count(const RingGeometry& g) {
  return ring_step_count(g.nranks) * g.slices;
}

// The chunk rank `rank` holds completely reduced after the reduce-scatter steps.
CB_HOST_DEVICE inline int ring_owned_chunk(int rank, int nranks) {
  return (rank + 1) % nranks;
}

// Publish counts (per part, relative to the part's count before the launch). Each rank's part
// publishes a running count into the next rank's flag: first "my input is ready" (1), then one
// more after each task the next rank will read. Counts only grow, so a waiter needs "at least".
constexpr std::uint32_t kRingInputReady = 1;
// Publishes per part per launch: the input, then every task but the last all-gather step's.
CB_HOST_DEVICE inline std::uint32_t ring_publish_count(const RingGeometry& g) {
  return 1u + static_cast<std::uint32_t>((ring_step_count(g.nranks) - 1) * g.slices);
}

// One unit of work of one part on one rank: a slice of one step. The rank pulls the piece from
// the previous rank (rank - 1) and writes it to its own output buffer:
//   reduce-scatter step s: out[chunk] = op(previous rank's partial, own input), where chunk is
//     (rank - 1 - s) mod n and the previous rank's partial is its input at s = 0, else its output;
//   all-gather step t: out[chunk] = previous rank's out[chunk], chunk = (rank - t) mod n.
struct RingTask {
  int step;
  int slice;
  int chunk;
  bool reduce;             // reduce-scatter (combine with own input) or all-gather (copy)
  bool peer_input;         // read the previous rank's input buffer (step 0), else its output
  bool finalize;           // last reduce-scatter step: the chunk is complete (avg divides here)
  std::uint32_t wait_for;  // the previous rank's publish count this task needs
  std::uint32_t publish;   // the count to publish when done; 0: nobody reads this task's output
};

// Task `index` (0 .. ring_task_count-1, in this order on every part) of rank `rank`.
CB_HOST_DEVICE inline RingTask ring_task(const RingGeometry& g, int rank, int index) {
  const int n = g.nranks;
  RingTask task{};
  task.step = index / g.slices;
  task.slice = index % g.slices;
  task.reduce = task.step < n - 1;
  task.peer_input = task.step == 0;
  task.finalize = task.step == n - 2;
  const int offset = task.reduce ? 1 + task.step : task.step - (n - 1);
  task.chunk = ((rank - offset) % n + n) % n;
  // Task i publishes i + 2 (1 is "input ready"). It needs the previous rank's same slice one step
  // earlier, which that rank published as (i - slices) + 2; step 0 needs only its input.
  const std::uint32_t published_before = static_cast<std::uint32_t>(index - g.slices + 2);
  task.wait_for = task.step == 0 ? kRingInputReady : published_before;
  const bool last_step = task.step == ring_step_count(n) - 1;
  task.publish = last_step ? 0u : static_cast<std::uint32_t>(index + 2);
  return task;
}

// How the ring moves data over NVLink. pull: each rank loads from rank - 1's buffers (the tasks
// above). push: each rank stores into rank + 1's staging slots and output, and loads only its own
// memory (the tasks below). README.md, "ring".
enum class RingProtocol : int { push, pull };

// ---------------------------------------------------------------------------------------------
// The push protocol. Per slice, rank r sends rank r + 1 2(n-1) messages, one per step j, each a
// piece of chunk (r - j) mod n followed by one arrival count:
//   j = 0:          own input                                 -> next's staging slot
//   j = 1 .. n-2:   op(staging slot, own input)               -> next's staging slot
//   j = n-1:        op(staging slot, own input), final (avg)  -> own output and next's output
//   j = n .. 2n-3:  own output (arrived from rank - 1)        -> next's output
// Rank r's step j consumes what rank r - 1 sent at its step j - 1 of the same slice (the chunk
// index moves with it); the last message of a slice (rank r - 1's step 2n-3) is only waited for
// at the end of the kernel. Tasks run slice by slice (all steps of slice 0, then slice 1, ...),
// so a staging slot is freed one step after it was filled, whatever the slice count.
//
// Counts (per part, running across launches, relative to the launch's base in the fields below):
// `arrived` (rank - 1's messages that landed here), `freed` (this rank's staging messages that
// rank + 1 has consumed: flow control). Staging message k (a running count) goes to slot
// k mod slots of rank + 1's FIFO for this part, once freed >= k - slots + 1.

enum class RingPushKind : int {
  send_input,      // step 0
  reduce_forward,  // steps 1 .. n-2
  finalize,        // step n-1: the chunk is complete
  gather_forward,  // steps n .. 2n-3
};

struct RingPushTask {
  int step;
  int slice;
  int chunk;
  RingPushKind kind;
  std::uint32_t wait_arrived;     // arrival count (relative) needed first; 0: none (step 0)
  std::uint32_t publish_arrived;  // arrival count (relative) published into rank + 1 when done
  bool reads_staging;             // consumes own staging message `read_message`, then frees it
  bool writes_staging;            // fills rank + 1's staging message `write_message`
  std::uint32_t read_message;     // staging message index (relative), if reads_staging
  std::uint32_t write_message;    // staging message index (relative), if writes_staging
};

// Messages per part per launch, each way: every task sends one.
CB_HOST_DEVICE inline std::uint32_t ring_push_arrivals(const RingGeometry& g) {
  return static_cast<std::uint32_t>(ring_task_count(g));
}
// Staging messages per part per launch, each way (steps 0 .. n-2 of every slice).
CB_HOST_DEVICE inline std::uint32_t ring_push_staged(const RingGeometry& g) {
  return static_cast<std::uint32_t>((g.nranks - 1) * g.slices);
}

// Task `index` (0 .. ring_task_count-1, in this order on every part) of rank `rank`.
CB_HOST_DEVICE inline RingPushTask ring_push_task(const RingGeometry& g, int rank, int index) {
  const int n = g.nranks;
  const int steps = ring_step_count(n);
  RingPushTask task{};
  task.step = index % steps;
  task.slice = index / steps;
  task.chunk = ((rank - task.step) % n + n) % n;
  if (task.step == 0) {
    task.kind = RingPushKind::send_input;
  } else if (task.step < n - 1) {
    task.kind = RingPushKind::reduce_forward;
  } else if (task.step == n - 1) {
    task.kind = RingPushKind::finalize;
  } else {
    task.kind = RingPushKind::gather_forward;
  }
  // Message index within the launch = task index: rank - 1 sent what this task needs as its
  // task index - 1 (same slice, one step earlier), published as count index.
  task.wait_arrived = task.step == 0 ? 0u : static_cast<std::uint32_t>(index);
  task.publish_arrived = static_cast<std::uint32_t>(index + 1);
  const std::uint32_t slice_staged = static_cast<std::uint32_t>(task.slice * (n - 1));
  task.reads_staging = task.step >= 1 && task.step <= n - 1;
  task.writes_staging = task.step <= n - 2;
  task.read_message = slice_staged + static_cast<std::uint32_t>(task.step - 1);
  task.write_message = slice_staged + static_cast<std::uint32_t>(task.step);
  return task;
}

// The `freed` count rank + 1 must have published before staging message `message` (a running
// count) may overwrite its slot: the message `slots` earlier in the same slot was consumed.
CB_HOST_DEVICE inline std::uint32_t ring_push_credit(std::uint32_t message, int slots) {
  return message - static_cast<std::uint32_t>(slots) + 1u;
}
// The slot of staging message `message` (running count). `slots` is a power of two, so the
// mapping stays continuous when the 32-bit count wraps.
CB_HOST_DEVICE inline int ring_push_slot(std::uint32_t message, int slots) {
  return static_cast<int>(message & static_cast<std::uint32_t>(slots - 1));
}
// Staging slots per part: a power of two (see ring_push_slot), at least 2 (a task holds the slot
// it reads while it fills one at rank + 1, so with one slot every rank would wait for the next).
constexpr int kRingMaxSlots = 64;
CB_HOST_DEVICE inline bool ring_push_slots_valid(int slots) {
  return slots >= 2 && slots <= kRingMaxSlots && (slots & (slots - 1)) == 0;
}

// The most lines any piece of this geometry has: the staging slot size. Chunks have at most
// ceil(lines / n) lines, and split_point cuts a chunk into pieces of at most ceil(chunk / pieces).
CB_HOST_DEVICE inline std::uint64_t ring_max_piece_lines(const RingGeometry& g) {
  const std::uint64_t chunk_lines = (ring_line_count(g) + g.nranks - 1) / g.nranks;
  const std::uint64_t pieces = static_cast<std::uint64_t>(g.slices) * g.parts;
  return (chunk_lines + pieces - 1) / pieces;
}
// Where slot `slot` of part `part` starts in a rank's staging buffer, in elements. Each part owns
// `slots` consecutive slots; a slot holds ring_max_piece_lines whole lines.
CB_HOST_DEVICE inline std::uint64_t ring_push_slot_offset(const RingGeometry& g, int slots,
                                                          int part, int slot) {
  const std::uint64_t slot_index = static_cast<std::uint64_t>(part) * slots + slot;
  return slot_index * ring_max_piece_lines(g) * g.line_elements;
}
// Bytes of one rank's staging buffer (at least one line, so it is never empty).
CB_HOST_DEVICE inline std::uint64_t ring_push_staging_bytes(const RingGeometry& g, int slots) {
  const std::uint64_t lines = static_cast<std::uint64_t>(g.parts) * slots * ring_max_piece_lines(g);
  return (lines > 0 ? lines : 1) * 16;
}

}  // namespace collbench::kernels
