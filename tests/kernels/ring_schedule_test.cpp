// The ring schedule (kernels/ring_schedule.hpp) checked on the CPU: the partition tiles the
// buffer, and n virtual ranks running the GPU kernel's protocol (same tasks, waits, publishes,
// end barrier) in random interleavings produce the element-wise reduction, launch after launch.
#include "ring_schedule.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace collbench::kernels {
namespace {

RingGeometry make_geometry(std::uint64_t count, int nranks, int slices, int parts,
                           int line_elements) {
  return {count, nranks, slices, parts, line_elements};
}

TEST(RingSchedule, ChunksAndPiecesTileTheBufferOnLineBoundaries) {
  for (int n = 2; n <= 8; ++n) {
    for (std::uint64_t count : {1ull, 2ull, 7ull, 16ull, 17ull, 1021ull, 65536ull, 1000003ull}) {
      for (int line : {1, 2, 4, 8, 16}) {
        for (int slices : {1, 3}) {
          for (int parts : {1, 4, 7}) {
            const RingGeometry g = make_geometry(count, n, slices, parts, line);
            std::uint64_t next_begin = 0;
            for (int c = 0; c < n; ++c) {
              const ElementRange chunk = ring_chunk(g, c);
              ASSERT_EQ(chunk.begin, next_begin)
                  << "n=" << n << " count=" << count << " chunk " << c;
              ASSERT_LE(chunk.begin, chunk.end);
              ASSERT_TRUE(chunk.begin % line == 0 || chunk.begin == count);
              std::uint64_t piece_begin = chunk.begin;
              for (int s = 0; s < slices; ++s) {
                for (int p = 0; p < parts; ++p) {
                  const ElementRange piece = ring_piece(g, c, s, p);
                  ASSERT_EQ(piece.begin, piece_begin)
                      << "chunk " << c << " slice " << s << " part " << p;
                  ASSERT_LE(piece.begin, piece.end);
                  ASSERT_TRUE(piece.end % line == 0 || piece.end == count);
                  piece_begin = piece.end;
                }
              }
              ASSERT_EQ(piece_begin, chunk.end);
              next_begin = chunk.end;
            }
            ASSERT_EQ(next_begin, count);
          }
        }
      }
    }
  }
}

TEST(RingSchedule, ChunksAreBalancedToWithinOneLine) {
  const RingGeometry g = make_geometry(1000003, 3, 1, 1, 4);
  for (int c = 0; c < 3; ++c) {
    const ElementRange chunk = ring_chunk(g, c);
    EXPECT_NEAR(static_cast<double>(chunk.end - chunk.begin), 1000003.0 / 3, 4.0);
  }
}

TEST(RingSchedule, EachRankReducesEveryOtherChunkOnceThenGathersAll) {
  for (int n = 2; n <= 8; ++n) {
    const RingGeometry g = make_geometry(1 << 20, n, 2, 1, 4);
    for (int rank = 0; rank < n; ++rank) {
      std::vector<int> reduced(n, 0), gathered(n, 0);
      for (int i = 0; i < ring_task_count(g); ++i) {
        const RingTask task = ring_task(g, rank, i);
        (task.reduce ? reduced : gathered)[task.chunk] += 1;
        if (task.finalize && task.slice == 0) {
          EXPECT_EQ(task.chunk, ring_owned_chunk(rank, n));
        }
      }
      for (int c = 0; c < n; ++c) {
        // Reduce-scatter touches every chunk but the one this rank's input enters first (its
        // own previous rank's), once per slice; all-gather brings every chunk but the owned one.
        EXPECT_EQ(reduced[c], c == rank ? 0 : g.slices)
            << "n=" << n << " rank " << rank << " chunk " << c;
        EXPECT_EQ(gathered[c], c == ring_owned_chunk(rank, n) ? 0 : g.slices);
      }
    }
  }
}

TEST(RingSchedule, PublishCountMatchesTheTasksThatPublish) {
  for (int n = 2; n <= 8; ++n) {
    const RingGeometry g = make_geometry(4096, n, 3, 2, 4);
    std::uint32_t last = kRingInputReady;
    std::uint32_t publishes = 1;
    for (int i = 0; i < ring_task_count(g); ++i) {
      const RingTask task = ring_task(g, 0, i);
      if (task.publish == 0) continue;
      EXPECT_EQ(task.publish, last + 1) << "publish counts must rise by one";
      last = task.publish;
      ++publishes;
    }
    EXPECT_EQ(publishes, ring_publish_count(g));
  }
}

TEST(RingSchedule, CountsCompareAcrossWrapAround) {
  EXPECT_TRUE(count_reached(5, 5));
  EXPECT_FALSE(count_reached(4, 5));
  EXPECT_TRUE(count_reached(2, 0xFFFFFFF0u));  // 2 is 18 past 0xFFFFFFF0 after wrapping
  EXPECT_FALSE(count_reached(0xFFFFFFF0u, 2));
}

// ---------------------------------------------------------------------------------------------
// A simulation of the ring kernel's protocol (ring_all_reduce.cu) on n virtual ranks. Each
// (rank, part) is an actor stepping through exactly what a CTA does; a random scheduler picks
// which runnable actor moves next. Between launches each rank's "user" checks its output, then
// overwrites its output with poison and its input with new values, as a caller may once the
// collective finished on its stream: a protocol that lets a peer read too early or too late
// produces wrong sums.

enum class Fault { none, skip_end_barrier, skip_input_wait };

struct SimulationConfig {
  RingGeometry geometry;
  bool in_place;
  bool average;  // sum, divided by n at the finalize step
  int launches;
  std::uint64_t seed;
  Fault fault = Fault::none;
};

class RingSimulation {
 public:
  explicit RingSimulation(const SimulationConfig& config)
      : c_(config), g_(config.geometry), n_(g_.nranks), random_(config.seed) {
    const std::size_t count = g_.count;
    send_.assign(n_, std::vector<std::uint64_t>(count));
    recv_storage_.assign(n_, std::vector<std::uint64_t>(count));
    ready_.assign(n_, std::vector<std::uint32_t>(g_.parts, 0));
    done_ = published_ = launches_ = ready_;
    actors_.assign(n_, std::vector<Actor>(g_.parts));
    launch_of_rank_.assign(n_, 0);
    user_pending_.assign(n_, false);
    for (int r = 0; r < n_; ++r) write_inputs(r, 0);
  }

  // Runs every launch; returns the number of wrong output elements seen (or -1 on deadlock).
  long run() {
    long wrong = 0;
    for (;;) {
      std::vector<std::pair<int, int>> runnable;  // (rank, part), part -1: the rank's user
      for (int r = 0; r < n_; ++r) {
        if (user_pending_[r]) runnable.push_back({r, -1});
        for (int p = 0; p < g_.parts; ++p) {
          if (can_step(r, p)) runnable.push_back({r, p});
        }
      }
      if (runnable.empty()) break;
      const auto [rank, part] = runnable[random_() % runnable.size()];
      if (part < 0) {
        wrong += user_turn(rank);
      } else {
        step(rank, part);
      }
    }
    for (int r = 0; r < n_; ++r) {
      if (launch_of_rank_[r] != c_.launches) return -1;  // someone is stuck: a deadlock
    }
    return wrong;
  }

 private:
  enum class State { start, task, end_publish, end_wait, finished };
  struct Actor {
    State state = State::start;
    int task = 0;
    std::uint32_t base = 0;
    std::uint32_t launch = 0;
  };

  std::vector<std::uint64_t>& recv(int r) { return c_.in_place ? send_[r] : recv_storage_[r]; }
  int previous(int r) const { return (r - 1 + n_) % n_; }
  int next(int r) const { return (r + 1) % n_; }

  static std::uint64_t input(std::uint64_t seed, int launch, int rank, std::uint64_t i) {
    std::uint64_t z =
        seed + 0x9E3779B97F4A7C15ull * (1 + i + (static_cast<std::uint64_t>(rank) << 40) +
                                        (static_cast<std::uint64_t>(launch) << 52));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 31);
  }
  void write_inputs(int r, int launch) {
    for (std::uint64_t i = 0; i < g_.count; ++i) send_[r][i] = input(c_.seed, launch, r, i);
  }
  std::uint64_t expected(int launch, std::uint64_t i) const {
    std::uint64_t sum = 0;
    for (int r = 0; r < n_; ++r)
      sum += input(c_.seed, launch, r, i);  // wraps, as unsigned GPU sums do
    return c_.average ? sum / n_ : sum;
  }

  bool started(int r) const { return launch_of_rank_[r] < c_.launches && !user_pending_[r]; }

  bool can_step(int r, int p) {
    const Actor& a = actors_[r][p];
    if (!started(r) || a.state == State::finished) return false;
    if (a.state == State::task) {
      const RingTask task = ring_task(g_, r, a.task);
      if (c_.fault == Fault::skip_input_wait && task.step == 0) return true;
      return count_reached(ready_[r][p], a.base + task.wait_for);
    }
    if (a.state == State::end_wait) {
      return c_.fault == Fault::skip_end_barrier || count_reached(done_[r][p], a.launch);
    }
    return true;
  }

  void step(int r, int p) {
    Actor& a = actors_[r][p];
    switch (a.state) {
      case State::start:
        a.base = published_[r][p];
        ready_[next(r)][p] = a.base + kRingInputReady;
        a.task = 0;
        a.state = ring_task_count(g_) > 0 ? State::task : State::end_publish;
        return;
      case State::task: {
        const RingTask task = ring_task(g_, r, a.task);
        const ElementRange piece = ring_piece(g_, task.chunk, task.slice, p);
        const std::vector<std::uint64_t>& peer =
            task.peer_input ? send_[previous(r)] : recv(previous(r));
        for (std::uint64_t i = piece.begin; i < piece.end; ++i) {
          if (task.reduce) {
            const std::uint64_t sum = peer[i] + send_[r][i];
            recv(r)[i] = (c_.average && task.finalize) ? sum / n_ : sum;
          } else {
            recv(r)[i] = peer[i];
          }
        }
        if (task.publish != 0) ready_[next(r)][p] = a.base + task.publish;
        if (++a.task == ring_task_count(g_)) a.state = State::end_publish;
        return;
      }
      case State::end_publish:
        a.launch = launches_[r][p] + 1;
        done_[previous(r)][p] = a.launch;
        a.state = State::end_wait;
        return;
      case State::end_wait:
        published_[r][p] = a.base + ring_publish_count(g_);
        launches_[r][p] = a.launch;
        a.state = State::finished;
        for (const Actor& other : actors_[r]) {
          if (other.state != State::finished) return;
        }
        user_pending_[r] = true;  // the launch is complete on this rank's stream
        return;
      case State::finished:
        return;
    }
  }

  // The caller on rank r after its launch completed: check, poison, refill, start the next.
  long user_turn(int r) {
    const int launch = launch_of_rank_[r];
    long wrong = 0;
    for (std::uint64_t i = 0; i < g_.count; ++i) wrong += recv(r)[i] != expected(launch, i);
    std::fill(recv(r).begin(), recv(r).end(), 0xDEADBEEFDEADBEEFull);
    write_inputs(r, launch + 1);
    user_pending_[r] = false;
    launch_of_rank_[r] = launch + 1;
    for (Actor& a : actors_[r]) a = Actor{};
    return wrong;
  }

  SimulationConfig c_;
  RingGeometry g_;
  int n_;
  std::mt19937_64 random_;
  std::vector<std::vector<std::uint64_t>> send_, recv_storage_;
  std::vector<std::vector<std::uint32_t>> ready_, done_, published_, launches_;
  std::vector<std::vector<Actor>> actors_;
  std::vector<int> launch_of_rank_;
  std::vector<bool> user_pending_;
};

TEST(RingProtocol, RandomInterleavingsReduceCorrectlyForManyShapes) {
  std::uint64_t seed = 1;
  for (int n = 2; n <= 8; ++n) {
    for (std::uint64_t count : {1ull, 7ull, 16ull, 17ull, 1021ull, 4099ull}) {
      for (int line : {2, 4, 16}) {
        for (int slices : {1, 3}) {
          for (int parts : {1, 3}) {
            for (bool in_place : {false, true}) {
              const SimulationConfig config{make_geometry(count, n, slices, parts, line), in_place,
                                            seed % 3 == 0, 3, seed};
              ++seed;
              EXPECT_EQ(RingSimulation(config).run(), 0)
                  << "n=" << n << " count=" << count << " line=" << line << " slices=" << slices
                  << " parts=" << parts << (in_place ? " in-place" : " out-of-place")
                  << " seed=" << config.seed;
            }
          }
        }
      }
    }
  }
}

// The simulation must be able to fail: without the end barrier a rank's caller overwrites
// buffers its next rank still reads, and without the input wait a rank reads a stale input.
long first_failure(Fault fault) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const SimulationConfig config{
        make_geometry(1021, 3, 2, 2, 4), seed % 2 == 0, false, 3, seed, fault};
    const long wrong = RingSimulation(config).run();
    if (wrong != 0) return wrong;
  }
  return 0;
}

TEST(RingProtocol, MissingEndBarrierIsCaught) {
  EXPECT_NE(first_failure(Fault::skip_end_barrier), 0);
}
TEST(RingProtocol, MissingInputWaitIsCaught) {
  EXPECT_NE(first_failure(Fault::skip_input_wait), 0);
}

}  // namespace
}  // namespace collbench::kernels
