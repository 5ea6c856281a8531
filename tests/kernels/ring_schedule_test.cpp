// The ring schedule (kernels/ring/ring_schedule.hpp) checked on the CPU: the partition tiles the
// buffer, and n virtual ranks running either GPU kernel's protocol (pull: same tasks, waits,
// publishes, end barrier; push: same tasks, staging slots, credits, arrivals, final wait) in
// random interleavings produce the element-wise reduction, launch after launch.
#include "ring/ring_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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
// A simulation of the pull kernel's protocol (ring_all_reduce.cu, ring_pull_kernel) on n virtual
// ranks. Each
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

TEST(RingPullProtocol, RandomInterleavingsReduceCorrectlyForManyShapes) {
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

TEST(RingPullProtocol, MissingEndBarrierIsCaught) {
  EXPECT_NE(first_failure(Fault::skip_end_barrier), 0);
}
TEST(RingPullProtocol, MissingInputWaitIsCaught) {
  EXPECT_NE(first_failure(Fault::skip_input_wait), 0);
}

// ---------------------------------------------------------------------------------------------
// The push schedule's structure: what rank r consumes is exactly what rank r - 1 sent one step
// earlier, staging messages are written and read in one order, and slots tile the staging buffer.

TEST(RingPushSchedule, EachTaskConsumesWhatThePreviousRankSentOneStepEarlier) {
  for (int n = 2; n <= 8; ++n) {
    const RingGeometry g = make_geometry(1 << 20, n, 3, 2, 4);
    for (int rank = 0; rank < n; ++rank) {
      const int previous = (rank - 1 + n) % n;
      std::uint32_t next_read = 0, next_write = 0;
      for (int i = 0; i < ring_task_count(g); ++i) {
        const RingPushTask task = ring_push_task(g, rank, i);
        ASSERT_EQ(task.publish_arrived, static_cast<std::uint32_t>(i + 1));
        if (task.reads_staging) {
          EXPECT_EQ(task.read_message, next_read++) << "staging is consumed in sending order";
        }
        if (task.writes_staging) {
          EXPECT_EQ(task.write_message, next_write++);
        }
        if (task.step == 0) {
          EXPECT_EQ(task.wait_arrived, 0u);
          EXPECT_EQ(task.chunk, rank) << "a rank's input of its own chunk starts it";
          continue;
        }
        // The message this task waits for is task i - 1 of rank - 1: same slice and chunk.
        const RingPushTask sent = ring_push_task(g, previous, i - 1);
        EXPECT_EQ(task.wait_arrived, sent.publish_arrived);
        EXPECT_EQ(task.slice, sent.slice);
        EXPECT_EQ(task.chunk, sent.chunk) << "n=" << n << " rank " << rank << " task " << i;
        EXPECT_EQ(task.reads_staging, sent.writes_staging);
        if (task.reads_staging) {
          EXPECT_EQ(task.read_message, sent.write_message);
        }
        if (task.kind == RingPushKind::finalize) {
          EXPECT_EQ(task.chunk, ring_owned_chunk(rank, n));
        }
      }
      EXPECT_EQ(next_read, ring_push_staged(g));
      EXPECT_EQ(next_write, ring_push_staged(g));
    }
  }
}

TEST(RingPushSchedule, EveryChunkIsReducedOnceInRingOrderThenReachesEveryRank) {
  for (int n = 2; n <= 8; ++n) {
    const RingGeometry g = make_geometry(4096, n, 2, 1, 4);
    const int steps = ring_step_count(n);
    for (int c = 0; c < n; ++c) {
      // Follow chunk c of slice 0 around the ring: rank c sends its input at step 0, each next
      // rank combines its own at the next step, until the owner finalizes it; then it is
      // forwarded until every rank holds it.
      std::vector<int> holds(n, 0);
      int rank = c;
      for (int step = 0; step < steps; ++step) {
        const RingPushTask task = ring_push_task(g, rank, step);
        ASSERT_EQ(task.chunk, c) << "n=" << n << " rank " << rank << " step " << step;
        if (step == n - 1) {
          EXPECT_EQ(task.kind, RingPushKind::finalize);
        }
        if (step >= n - 1) holds[rank] += 1;
        rank = (rank + 1) % n;
      }
      holds[rank] += 1;  // the last message, waited for at the kernel's end
      for (int r = 0; r < n; ++r) {
        EXPECT_EQ(holds[r], 1) << "n=" << n << " chunk " << c;
      }
    }
  }
}

TEST(RingPushSchedule, SlotsHoldEveryPieceAndTileTheStagingBuffer) {
  for (int n = 2; n <= 8; ++n) {
    for (std::uint64_t count : {1ull, 7ull, 17ull, 1021ull, 65537ull, 1000003ull}) {
      for (int line : {1, 2, 8}) {
        for (int slices : {1, 3}) {
          for (int parts : {1, 5}) {
            const RingGeometry g = make_geometry(count, n, slices, parts, line);
            const std::uint64_t slot_elements = ring_max_piece_lines(g) * line;
            for (int c = 0; c < n; ++c) {
              for (int s = 0; s < slices; ++s) {
                for (int p = 0; p < parts; ++p) {
                  const ElementRange piece = ring_piece(g, c, s, p);
                  ASSERT_LE(piece.end - piece.begin, slot_elements)
                      << "n=" << n << " count=" << count << " chunk " << c << " slice " << s;
                }
              }
            }
            for (int slots : {2, 4}) {
              for (int p = 0; p < parts; ++p) {
                for (int k = 0; k < slots; ++k) {
                  const std::uint64_t at = ring_push_slot_offset(g, slots, p, k);
                  ASSERT_EQ(at, (static_cast<std::uint64_t>(p) * slots + k) * slot_elements);
                }
              }
              const std::uint64_t staging_elements = ring_push_slot_offset(g, slots, parts, 0);
              ASSERT_GE(ring_push_staging_bytes(g, slots) / 16 * line, staging_elements);
            }
          }
        }
      }
    }
  }
}

TEST(RingPushSchedule, SlotsArePowersOfTwoSoTheMappingSurvivesWrapAround) {
  EXPECT_FALSE(ring_push_slots_valid(1));
  EXPECT_FALSE(ring_push_slots_valid(3));
  EXPECT_FALSE(ring_push_slots_valid(2 * kRingMaxSlots));
  EXPECT_TRUE(ring_push_slots_valid(2));
  EXPECT_TRUE(ring_push_slots_valid(kRingMaxSlots));
  for (int slots : {2, 4, 8}) {
    // Consecutive messages take consecutive slots, also from 2^32 - 1 to 0.
    EXPECT_EQ(ring_push_slot(0u, slots), (ring_push_slot(0xFFFFFFFFu, slots) + 1) % slots);
    // A message may be written once the one `slots` earlier in its slot was consumed.
    EXPECT_EQ(ring_push_credit(static_cast<std::uint32_t>(slots), slots), 1u);
    EXPECT_TRUE(count_reached(0u, ring_push_credit(1u, slots)));  // the first messages need none
    EXPECT_FALSE(count_reached(0u, ring_push_credit(static_cast<std::uint32_t>(slots), slots)));
  }
}

// ---------------------------------------------------------------------------------------------
// A simulation of the push kernel's protocol (ring_all_reduce.cu, ring_push_kernel) on n virtual
// ranks. Each (rank, part) is an actor stepping through exactly what a CTA does: read its bases,
// then per task wait for its arrival and its credit, move the piece a few elements at a time, and
// publish; at the end wait for every arrival. Its stores (to the next rank's staging or output,
// and its own output) do not land at once: they wait in the actor's store buffer and land in any
// order, one random batch at a time, until a publish (a release) lands them all before the flag.
// A random scheduler, with a random speed per rank so that ranks drift apart, picks what happens
// next: an actor's step, a batch of stores landing, or a rank's caller, who checks its output,
// poisons it and writes the next input the moment its launch completes. Launches run in cases
// (geometries) with prepare()'s synchronisation between cases; counts run on across all of them.
// The reduction is a non-commutative combine, so the expected value also checks the order (each
// chunk reduced once, in ring order from the rank that owns its input first).

enum class PushFault {
  none,
  skip_credit_wait,     // overwrite a slot without knowing rank + 1 consumed it
  skip_staging_wait,    // reduce a staging slot before its arrival
  skip_gather_wait,     // forward an output piece before its arrival
  skip_end_wait,        // end the kernel before the last arrivals
  free_before_reading,  // free the slot as the task starts instead of after its loads
  unordered_release,    // publish flags without landing the stores first
};

struct PushCase {
  RingGeometry geometry;
  int launches;
};

struct PushConfig {
  std::vector<PushCase> cases;  // nranks equal; counts, slices, parts, lines may differ
  int slots;
  bool in_place;
  bool average;
  std::uint64_t seed;
  std::uint32_t start_count = 0;  // every count starts here (consistently), to cross 2^32
  PushFault fault = PushFault::none;
};

class PushSimulation {
 public:
  explicit PushSimulation(const PushConfig& config)
      : c_(config), n_(config.cases.front().geometry.nranks), random_(config.seed) {
    std::uint64_t max_count = 1, max_staging = 1;
    int max_parts = 1;
    for (const PushCase& one : c_.cases) {
      for (int l = 0; l < one.launches; ++l) geometry_of_launch_.push_back(one.geometry);
      case_starts_.push_back(static_cast<int>(geometry_of_launch_.size()) - one.launches);
      max_count = std::max(max_count, one.geometry.count);
      max_parts = std::max(max_parts, one.geometry.parts);
      max_staging = std::max(max_staging,
                             ring_push_slot_offset(one.geometry, c_.slots, one.geometry.parts, 0));
    }
    send_.assign(n_, std::vector<std::uint64_t>(max_count));
    recv_storage_.assign(n_, std::vector<std::uint64_t>(max_count));
    staging_.assign(n_, std::vector<std::uint64_t>(max_staging));
    for (auto& staging : staging_) {
      for (std::uint64_t& value : staging) value = random_();  // never what a reader expects
    }
    const std::vector<std::uint32_t> counts(max_parts, c_.start_count);
    arrived_ = freed_ = received_ = staged_ = std::vector<std::vector<std::uint32_t>>(n_, counts);
    actors_.assign(n_, std::vector<Actor>(max_parts));
    launch_.assign(n_, 0);
    running_.assign(n_, false);
    user_pending_.assign(n_, false);
    for (int r = 0; r < n_; ++r) {
      speed_.push_back(1 + static_cast<int>(random_() % 16));
      write_inputs(r, 0);
    }
  }

  // Runs every launch; returns the number of wrong output elements seen (or -1 on deadlock).
  long run() {
    long wrong = 0;
    const int total = static_cast<int>(geometry_of_launch_.size());
    for (;;) {
      candidates_.clear();
      for (int r = 0; r < n_; ++r) {
        if (user_pending_[r]) add_candidate(Action::user, r, -1);
        if (can_begin(r)) add_candidate(Action::begin, r, -1);
        if (!running_[r] && !user_pending_[r]) continue;
        for (int p = 0; p < geometry(r).parts; ++p) {
          if (can_step(r, p)) add_candidate(Action::step, r, p);
          if (!actors_[r][p].pending.empty()) add_candidate(Action::land, r, p);
        }
      }
      if (candidates_.empty()) break;
      const Candidate chosen = pick();
      switch (chosen.action) {
        case Action::user:
          wrong += user_turn(chosen.rank);
          break;
        case Action::begin:
          running_[chosen.rank] = true;
          for (int p = 0; p < geometry(chosen.rank).parts; ++p) {
            actors_[chosen.rank][p].state = State::start;
          }
          break;
        case Action::step:
          step(chosen.rank, chosen.part);
          break;
        case Action::land:
          land_some(actors_[chosen.rank][chosen.part]);
          break;
      }
    }
    for (int r = 0; r < n_; ++r) {
      if (launch_[r] != total) return -1;  // someone is stuck: a deadlock
    }
    return wrong;
  }

 private:
  enum class State { idle, start, wait, move, publish, end_wait, finished };
  struct Store {
    std::uint64_t* at;
    std::uint64_t value;
  };
  struct Actor {
    State state = State::idle;
    int task = 0;
    std::uint32_t received_base = 0;
    std::uint32_t staged_base = 0;
    std::uint64_t moved = 0;  // elements of the current piece done
    bool freed_early = false;
    std::vector<Store> pending;  // stores issued but not landed
  };
  enum class Action { user, begin, step, land };
  struct Candidate {
    Action action;
    int rank;
    int part;
    int weight;
  };

  const RingGeometry& geometry(int r) const {
    const int launch = std::min<int>(launch_[r], static_cast<int>(geometry_of_launch_.size()) - 1);
    return geometry_of_launch_[launch];
  }
  std::vector<std::uint64_t>& recv(int r) { return c_.in_place ? send_[r] : recv_storage_[r]; }
  int previous(int r) const { return (r - 1 + n_) % n_; }
  int next(int r) const { return (r + 1) % n_; }

  static std::uint64_t combine(std::uint64_t partial, std::uint64_t own) {
    return partial * 0x100000001B3ull + own;  // non-commutative: the order is checked too
  }
  static std::uint64_t input(std::uint64_t seed, int launch, int rank, std::uint64_t i) {
    std::uint64_t z =
        seed + 0x9E3779B97F4A7C15ull * (1 + i + (static_cast<std::uint64_t>(rank) << 40) +
                                        (static_cast<std::uint64_t>(launch) << 52));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return z ^ (z >> 31);
  }
  void write_inputs(int r, int launch) {
    for (std::uint64_t& value : send_[r]) value = 0xBADBADBADBADBADBull;  // beyond the count
    const std::uint64_t count =
        geometry_of_launch_[std::min<std::size_t>(launch, geometry_of_launch_.size() - 1)].count;
    for (std::uint64_t i = 0; i < count; ++i) send_[r][i] = input(c_.seed, launch, r, i);
  }
  // Chunk c is reduced starting with rank c's input, then c + 1's, ..., ending at its owner c - 1.
  std::uint64_t expected(int launch, std::uint64_t i) const {
    const RingGeometry& g = geometry_of_launch_[launch];
    int chunk = 0;
    while (ring_chunk(g, chunk).end <= i) ++chunk;
    std::uint64_t value = input(c_.seed, launch, chunk, i);
    for (int k = 1; k < n_; ++k)
      value = combine(value, input(c_.seed, launch, (chunk + k) % n_, i));
    return c_.average ? value / n_ : value;
  }

  void add_candidate(Action action, int r, int p) {
    candidates_.push_back({action, r, p, action == Action::user ? 4 : speed_[r]});
  }
  Candidate pick() {
    long total = 0;
    for (const Candidate& one : candidates_) total += one.weight;
    long at = static_cast<long>(random_() % static_cast<std::uint64_t>(total));
    for (const Candidate& one : candidates_) {
      if (at < one.weight) return one;
      at -= one.weight;
    }
    return candidates_.back();
  }

  // A kernel may be enqueued once the previous one's caller is done; the first launch of a case
  // only once every rank finished the previous case (prepare() synchronises every stream).
  bool can_begin(int r) const {
    const int launch = launch_[r];
    if (running_[r] || user_pending_[r] || launch >= static_cast<int>(geometry_of_launch_.size())) {
      return false;
    }
    if (std::find(case_starts_.begin(), case_starts_.end(), launch) == case_starts_.end()) {
      return true;
    }
    for (int other = 0; other < n_; ++other) {
      if (launch_[other] < launch) return false;
    }
    return true;
  }

  bool may_skip_arrival(const RingPushTask& task) const {
    if (c_.fault == PushFault::skip_staging_wait) return task.reads_staging;
    if (c_.fault == PushFault::skip_gather_wait) return task.kind == RingPushKind::gather_forward;
    return false;
  }

  bool can_step(int r, int p) const {
    const Actor& a = actors_[r][p];
    switch (a.state) {
      case State::idle:
      case State::finished:
        return false;
      case State::wait: {
        const RingPushTask task = ring_push_task(geometry(r), r, a.task);
        // The kernel keeps the last count it acquired and skips a wait that count covers; the
        // flags only grow, so reading the flag itself decides the same.
        const bool arrival = task.step == 0 || may_skip_arrival(task) ||
                             count_reached(arrived_[r][p], a.received_base + task.wait_arrived);
        const bool credit =
            !task.writes_staging || c_.fault == PushFault::skip_credit_wait ||
            count_reached(freed_[r][p],
                          ring_push_credit(a.staged_base + task.write_message, c_.slots));
        return arrival && credit;
      }
      case State::end_wait:
        return c_.fault == PushFault::skip_end_wait ||
               count_reached(arrived_[r][p], a.received_base + ring_push_arrivals(geometry(r)));
      default:
        return true;
    }
  }

  std::uint64_t& staging_at(int r, int p, std::uint32_t message, std::uint64_t i) {
    const RingGeometry& g = geometry(r);
    return staging_[r].at(ring_push_slot_offset(g, c_.slots, p, ring_push_slot(message, c_.slots)) +
                          i);
  }

  void land_all(Actor& a) {
    for (const Store& store : a.pending) *store.at = store.value;
    a.pending.clear();
  }
  void land_some(Actor& a) {
    const int batch = 1 + static_cast<int>(random_() % 8);
    for (int k = 0; k < batch && !a.pending.empty(); ++k) {
      const std::size_t which = random_() % a.pending.size();
      *a.pending[which].at = a.pending[which].value;
      a.pending[which] = a.pending.back();
      a.pending.pop_back();
    }
  }
  void release(Actor& a) {
    if (c_.fault != PushFault::unordered_release) land_all(a);
  }

  void step(int r, int p) {
    Actor& a = actors_[r][p];
    const RingGeometry& g = geometry(r);
    switch (a.state) {
      case State::start:
        a.received_base = received_[r][p];
        a.staged_base = staged_[r][p];
        a.task = 0;
        a.state = State::wait;
        return;
      case State::wait: {
        const RingPushTask task = ring_push_task(g, r, a.task);
        a.moved = 0;
        a.freed_early = c_.fault == PushFault::free_before_reading && task.reads_staging;
        if (a.freed_early) freed_[previous(r)][p] = a.staged_base + task.read_message + 1;
        a.state = State::move;
        return;
      }
      case State::move:
        move_some(r, p);
        return;
      case State::publish: {
        const RingPushTask task = ring_push_task(g, r, a.task);
        release(a);
        arrived_[next(r)][p] = a.received_base + task.publish_arrived;
        if (task.reads_staging && !a.freed_early) {
          freed_[previous(r)][p] = a.staged_base + task.read_message + 1;
        }
        a.state = ++a.task == ring_task_count(g) ? State::end_wait : State::wait;
        return;
      }
      case State::end_wait:
        release(a);  // a kernel's stores have landed when it completes
        received_[r][p] = a.received_base + ring_push_arrivals(g);
        staged_[r][p] = a.staged_base + ring_push_staged(g);
        a.state = State::finished;
        for (int q = 0; q < g.parts; ++q) {
          if (actors_[r][q].state != State::finished) return;
        }
        running_[r] = false;
        user_pending_[r] = true;  // the launch is complete on this rank's stream
        return;
      case State::idle:
      case State::finished:
        return;
    }
  }

  // A few elements of the current piece: loads now, stores into the store buffer.
  void move_some(int r, int p) {
    Actor& a = actors_[r][p];
    const RingGeometry& g = geometry(r);
    const RingPushTask task = ring_push_task(g, r, a.task);
    const ElementRange piece = ring_piece(g, task.chunk, task.slice, p);
    const std::uint64_t elements = piece.end - piece.begin;
    const std::uint64_t end = std::min(elements, a.moved + 1 + random_() % 16);
    const std::uint32_t read = a.staged_base + task.read_message;
    const std::uint32_t write = a.staged_base + task.write_message;
    for (std::uint64_t i = a.moved; i < end; ++i) {
      const std::uint64_t at = piece.begin + i;
      switch (task.kind) {
        case RingPushKind::send_input:
          a.pending.push_back({&staging_at(next(r), p, write, i), send_[r][at]});
          break;
        case RingPushKind::reduce_forward:
          a.pending.push_back({&staging_at(next(r), p, write, i),
                               combine(staging_at(r, p, read, i), send_[r][at])});
          break;
        case RingPushKind::finalize: {
          std::uint64_t value = combine(staging_at(r, p, read, i), send_[r][at]);
          if (c_.average) value /= n_;
          a.pending.push_back({&recv(r)[at], value});
          a.pending.push_back({&recv(next(r))[at], value});
          break;
        }
        case RingPushKind::gather_forward:
          a.pending.push_back({&recv(next(r))[at], recv(r)[at]});
          break;
      }
    }
    a.moved = end;
    if (a.moved == elements) a.state = State::publish;
  }

  // The caller on rank r after its launch completed: check, poison, refill.
  long user_turn(int r) {
    const int launch = launch_[r];
    long wrong = 0;
    const std::uint64_t count = geometry_of_launch_[launch].count;
    for (std::uint64_t i = 0; i < count; ++i) wrong += recv(r)[i] != expected(launch, i);
    std::fill(recv(r).begin(), recv(r).end(), 0xDEADBEEFDEADBEEFull);
    write_inputs(r, launch + 1);
    user_pending_[r] = false;
    launch_[r] = launch + 1;
    for (Actor& a : actors_[r]) {
      if (c_.fault == PushFault::unordered_release) {
        a.state = State::idle;  // its stores may still be in flight
      } else {
        a = Actor{};
      }
    }
    return wrong;
  }

  PushConfig c_;
  int n_;
  std::mt19937_64 random_;
  std::vector<RingGeometry> geometry_of_launch_;
  std::vector<int> case_starts_;
  std::vector<std::vector<std::uint64_t>> send_, recv_storage_, staging_;
  std::vector<std::vector<std::uint32_t>> arrived_, freed_, received_, staged_;
  std::vector<std::vector<Actor>> actors_;
  std::vector<int> launch_;
  std::vector<bool> running_, user_pending_;
  std::vector<int> speed_;
  std::vector<Candidate> candidates_;
};

TEST(RingPushProtocol, RandomInterleavingsReduceCorrectlyForManyShapes) {
  std::uint64_t seed = 1;
  for (int n = 2; n <= 8; ++n) {
    for (std::uint64_t count : {1ull, 7ull, 17ull, 101ull, 1021ull, 4099ull}) {
      for (int slices : {1, 2, 5}) {
        for (int parts : {1, 2, 3}) {
          for (bool in_place : {false, true}) {
            const int line = std::vector<int>{2, 4, 16}[seed % 3];
            const int slots = std::vector<int>{2, 4, 8}[(seed / 3) % 3];
            const PushConfig config{{{make_geometry(count, n, slices, parts, line), 3}},
                                    slots,
                                    in_place,
                                    seed % 4 == 0,
                                    seed};
            ++seed;
            EXPECT_EQ(PushSimulation(config).run(), 0)
                << "n=" << n << " count=" << count << " line=" << line << " slices=" << slices
                << " parts=" << parts << " slots=" << slots
                << (in_place ? " in-place" : " out-of-place") << " seed=" << config.seed;
          }
        }
      }
    }
  }
}

// Many slices and few slots: every slot is refilled many times within and across launches.
TEST(RingPushProtocol, ManySlicesThroughTwoSlots) {
  for (int n : {2, 3, 5, 8}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const PushConfig config{
          {{make_geometry(6007, n, 9, 2, 4), 4}}, 2, seed % 2 == 0, false, seed * 7919};
      EXPECT_EQ(PushSimulation(config).run(), 0) << "n=" << n << " seed=" << config.seed;
    }
  }
}

// Cases of different geometry (slot size and layout change) follow one another, and the counts
// start just below 2^32 so they wrap in the middle.
TEST(RingPushProtocol, GeometriesChangeBetweenCasesAndCountsWrap) {
  for (int n : {2, 3, 4, 7}) {
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      PushConfig config{{{make_geometry(1021, n, 2, 3, 4), 2},
                         {make_geometry(4099, n, 3, 2, 2), 2},
                         {make_geometry(7, n, 1, 1, 16), 2},
                         {make_geometry(2053, n, 1, 3, 4), 2}},
                        seed % 2 == 0 ? 2 : 4,
                        seed % 3 == 0,
                        seed % 4 == 1,
                        seed};
      config.start_count = 0xFFFFFFFFu - static_cast<std::uint32_t>(seed * 5);
      EXPECT_EQ(PushSimulation(config).run(), 0) << "n=" << n << " seed=" << seed;
    }
  }
}

// The simulation must be able to fail: each fault below, alone, produces wrong outputs in some
// interleaving; and with a single staging slot every rank waits for the next: a deadlock. The
// credit wait is load-bearing only with slots <= n - 2: with more, the ring's own causality
// (rank r's task i comes after rank r + 1's task i - n + 1, through n - 1 arrivals) already
// orders each slot's reuse after its consumer, so its faults are shown on 5 ranks and 2 slots.
long first_push_failure(PushFault fault, int nranks) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const PushConfig config{
        {{make_geometry(1021, nranks, 3, 2, 4), 3}}, 2, seed % 2 == 0, false, seed, 0, fault};
    const long wrong = PushSimulation(config).run();
    if (wrong != 0) return wrong;
  }
  return 0;
}

// Each fault with the ring size that exposes it (the credit only matters with slots <= n - 2).
struct PushFaultCase {
  PushFault fault;
  int nranks;
  const char* name;
};
class PushFaultIsCaught : public ::testing::TestWithParam<PushFaultCase> {};
TEST_P(PushFaultIsCaught, GivesWrongResults) {
  EXPECT_GT(first_push_failure(GetParam().fault, GetParam().nranks), 0);
}
INSTANTIATE_TEST_SUITE_P(
    RingPushProtocol, PushFaultIsCaught,
    ::testing::Values(PushFaultCase{PushFault::skip_credit_wait, 5, "MissingCreditWait"},
                      PushFaultCase{PushFault::skip_staging_wait, 3, "MissingStagingArrivalWait"},
                      PushFaultCase{PushFault::skip_gather_wait, 3, "MissingGatherArrivalWait"},
                      PushFaultCase{PushFault::skip_end_wait, 3, "MissingEndWait"},
                      PushFaultCase{PushFault::free_before_reading, 5,
                                    "FreeingASlotBeforeReadingIt"},
                      PushFaultCase{PushFault::unordered_release, 3, "FlagsOvertakingTheirData"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RingPushProtocol, OneSlotDeadlocks) {
  const PushConfig config{{{make_geometry(1021, 3, 2, 1, 4), 2}}, 1, false, false, 1};
  EXPECT_EQ(PushSimulation(config).run(), -1);
}

}  // namespace
}  // namespace collbench::kernels
