// The ring all-reduce schedule: how the buffer is cut into chunks, slices and parts, and what
// every rank reads, reduces, waits for and publishes at each step. The GPU kernels (ring,
// ring_sendrecv) run this code and the CPU test simulates n virtual ranks with it.
#pragma once

#include <cstdint>

#if !defined(CB_HOST_DEVICE)
#if defined(__CUDACC__)
#define CB_HOST_DEVICE __host__ __device__
#else
#define CB_HOST_DEVICE
#endif
#endif

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

// Wrap-safe "count has reached target" for the running 32-bit counts.
CB_HOST_DEVICE inline bool count_reached(std::uint32_t count, std::uint32_t target) {
  return static_cast<std::int32_t>(count - target) >= 0;
}

}  // namespace collbench::kernels
