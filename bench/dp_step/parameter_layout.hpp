// Where every parameter of the model lives in the flat per-rank buffers (weights, gradients,
// optimizer state share one layout), how the gradients are cut into buckets, and which part of
// each bucket a rank owns when the optimizer state is sharded. Pure arithmetic, no GPU.
//
// Layout: layers in reverse order (L-1 first), each layer's weight then its bias, each parameter
// starting on a 256-byte boundary. Backward produces a layer's weight and bias gradients at once,
// so the layer is the unit of bucketing:
//   - layers are packed into a bucket while the bucket stays within the cap;
//   - a layer bigger than the cap is cut into equal slices no bigger than the cap, one bucket each
//     (so a parameter may be split; its slices all become ready together);
//   - a cap of 0 means one bucket holding everything (sync mode);
//   - `last_layer_buckets` N > 0 (with a cap) cuts layer 0, the step's last gradients, into N equal
//     buckets of its own whatever the cap, so that with its weight-gradient GEMM cut at the same
//     boundaries only the last slice's all-reduce is left after backward.
// Every bucket is padded to a multiple of nranks * 256 bytes, so reduce-scatter and all-gather
// chunks are equal and aligned. Padding is zero and stays zero (its gradient is zero).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collbench::dp {

inline constexpr std::uint64_t kParameterAlignBytes = 256;

struct Parameter {
  int layer;
  bool is_bias;
  std::uint64_t rows;    // weight: output features; bias: 1
  std::uint64_t cols;    // weight: input features; bias: output features
  std::uint64_t offset;  // first element in the flat buffers
  std::uint64_t elements() const { return rows * cols; }
};

struct Bucket {
  std::uint64_t begin;     // first element
  std::uint64_t elements;  // including the padding at its end
  int highest_layer;       // first layer whose gradients land in it
  int lowest_layer;        // last one: the bucket is ready after this layer's weight gradient
};

// Weight-gradient rows a cut GEMM computes for one slice of a layer that spans several buckets:
// once rows [0, row_end) exist, every weight element of `bucket` does. Pieces of a layer run in
// order, so a piece computes [previous piece's row_end, row_end).
struct WeightPiece {
  std::size_t bucket;
  std::uint64_t row_begin;
  std::uint64_t row_end;
};

// Piece boundaries fall on multiples of this many rows (clamped to the width), so each piece's
// operands start 32-byte aligned, as cuBLASLt's tensor-core kernels want, even for small models.
inline constexpr std::uint64_t kPieceRowAlign = 16;

class ParameterLayout {
 public:
  // `width`-wide square layers; `element_bytes` of the model's type; `bucket_cap_bytes` 0 for one
  // bucket; `last_layer_buckets` 0 to bucket layer 0 by the cap like every layer. Throws
  // std::invalid_argument for non-positive sizes or a negative `last_layer_buckets`.
  ParameterLayout(int layers, int width, std::size_t element_bytes, std::uint64_t bucket_cap_bytes,
                  int nranks, int last_layer_buckets = 0);

  int layers() const { return layers_; }
  int nranks() const { return nranks_; }
  std::size_t element_bytes() const { return element_bytes_; }
  // In model order: layer 0 weight, layer 0 bias, layer 1 weight, ...
  const std::vector<Parameter>& parameters() const { return parameters_; }
  const Parameter& weight(int layer) const { return parameters_[2 * layer]; }
  const Parameter& bias(int layer) const { return parameters_[2 * layer + 1]; }
  // In launch order (reverse layer order).
  const std::vector<Bucket>& buckets() const { return buckets_; }
  // Elements of the flat buffers, padding included.
  std::uint64_t total_elements() const { return total_elements_; }
  std::uint64_t total_bytes() const { return total_elements_ * element_bytes_; }
  // Real parameters, padding excluded.
  std::uint64_t parameter_count() const { return parameter_count_; }

  // The pieces of `layer`'s weight-gradient GEMM, one per bucket of a layer split into slices,
  // in bucket order; rows tile [0, width) (a piece may be empty). Empty for a layer inside one
  // bucket: its GEMM stays whole.
  std::vector<WeightPiece> weight_pieces(int layer) const;

  // Sharding (reduce-scatter / all-gather / sharded optimizer state): rank r owns chunk r of
  // every bucket; its chunks sit back to back in its shard buffers.
  std::uint64_t chunk_elements(const Bucket& bucket) const { return bucket.elements / nranks_; }
  std::uint64_t chunk_begin(const Bucket& bucket, int rank) const {
    return bucket.begin + static_cast<std::uint64_t>(rank) * chunk_elements(bucket);
  }
  // Offset of this bucket's chunk inside a rank's shard buffers.
  std::uint64_t shard_offset(const Bucket& bucket) const { return bucket.begin / nranks_; }
  std::uint64_t shard_elements() const { return total_elements_ / nranks_; }

 private:
  int layers_;
  int nranks_;
  std::size_t element_bytes_;
  std::vector<Parameter> parameters_;
  std::vector<Bucket> buckets_;
  std::uint64_t total_elements_ = 0;
  std::uint64_t parameter_count_ = 0;
};

}  // namespace collbench::dp
