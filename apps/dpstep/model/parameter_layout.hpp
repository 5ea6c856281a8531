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
//   - a cap of 0 means one bucket holding everything (sync mode).
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

class ParameterLayout {
 public:
  // `width`-wide square layers; `element_bytes` of the model's type; `bucket_cap_bytes` 0 for one
  // bucket. Throws std::invalid_argument for non-positive sizes.
  ParameterLayout(int layers, int width, std::size_t element_bytes, std::uint64_t bucket_cap_bytes,
                  int nranks);

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
