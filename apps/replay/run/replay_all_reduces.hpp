// The workload's all_reduce ops on a hand-built algorithm (--algo, bench/algorithms): one instance
// of the algorithm per recorded all_reduce (its communicator and sequence number), made over this
// process's ranks of that communicator and prepared once on the buffers and stream the replay
// placed the op on, as the training step prepares one per bucket. Each rank's thread then launches
// its share in place of ncclAllReduce; its output is checked like NCCL's.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/buffer_registration.hpp"
#include "plan/workload_ops.hpp"

namespace collbench::replay {

class RankReplayer;

// Thrown while preparing a combination that cannot run here (an op's shape the algorithm does not
// take, registered buffers it cannot use): the replay skips the combination, saying why. Every
// process decides alike (the shapes and the peers' verdict are the same everywhere).
class UnsupportedCombination : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One rank's share of one prepared instance: what its thread launches.
struct BoundAllReduce {
  CollectiveAlgorithm* algorithm = nullptr;
  const CaseShape* shape = nullptr;
  RankContext context{};
  RankBuffers buffers{};

  void launch() const { algorithm->launch({context}, {buffers}, *shape, 1); }
  // What one launch enqueues on the rank's stream (the start gate's budget).
  int stream_operations() const { return algorithm->stream_operations(*shape, 1); }
};

class HandbuiltAllReduces {
 public:
  // Makes and prepares every instance in (communicator, sequence) order, so that processes reach
  // the collective set-up of each (peer checks, handle exchange) in one order, and binds each
  // replayer's all_reduce ops to theirs. `replayers`: this process's, prepared (buffers placed);
  // `all_agree(ok)`: true when every process passed true (collective over the world). Throws
  // UnsupportedCombination, on every process alike, when `algo` cannot run an op here.
  HandbuiltAllReduces(const AlgorithmChoice& algo, BufferRegistration registration,
                      const WorkloadOps& workload,
                      const std::vector<std::unique_ptr<RankReplayer>>& replayers,
                      const std::function<bool(bool)>& all_agree);
  ~HandbuiltAllReduces();
  HandbuiltAllReduces(const HandbuiltAllReduces&) = delete;
  HandbuiltAllReduces& operator=(const HandbuiltAllReduces&) = delete;

  std::size_t instance_count() const { return instances_.size(); }
  // What stays on NCCL that a user might expect on the algorithm (grouped all_reduces); or "".
  const std::string& kept_note() const { return kept_note_; }
  // Once the last iteration is done, before the barrier after which peers may free their buffers
  // (CollectiveAlgorithm::release).
  void release();
  void request_abort() noexcept;
  void check_health() const;

 private:
  struct Instance;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::string kept_note_;
};

}  // namespace collbench::replay
