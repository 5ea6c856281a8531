// Parameter placement and bucket assignment (see parameter_layout.hpp for the rules).
#include "model/parameter_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace collbench::dp {
namespace {

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

ParameterLayout::ParameterLayout(int layers, int width, std::size_t element_bytes,
                                 std::uint64_t bucket_cap_bytes, int nranks)
    : layers_(layers), nranks_(nranks), element_bytes_(element_bytes) {
  if (layers < 1 || width < 1 || element_bytes == 0 || kParameterAlignBytes % element_bytes != 0 ||
      nranks < 1) {
    throw std::invalid_argument(
        "parameter layout: layers, width, element size and ranks must be positive");
  }
  const std::uint64_t unit = kParameterAlignBytes / element_bytes;  // parameter alignment
  const std::uint64_t bucket_unit =
      unit * static_cast<std::uint64_t>(nranks);  // bucket size granule
  const std::uint64_t w = static_cast<std::uint64_t>(width);
  const std::uint64_t weight_elements = round_up(w * w, unit);
  const std::uint64_t layer_elements = weight_elements + round_up(w, unit);
  // The cap in elements, a whole number of bucket granules (at least one).
  const std::uint64_t cap =
      bucket_cap_bytes == 0
          ? 0
          : std::max(bucket_unit, bucket_cap_bytes / element_bytes / bucket_unit * bucket_unit);

  parameters_.resize(2 * static_cast<std::size_t>(layers));
  std::uint64_t offset = 0;
  Bucket open{0, 0, -1, -1};  // the bucket being filled; elements == 0 while empty
  auto close_open_bucket = [&] {
    if (open.elements == 0) return;
    open.elements = round_up(open.elements, bucket_unit);
    buckets_.push_back(open);
    offset = open.begin + open.elements;
    open = Bucket{offset, 0, -1, -1};
  };

  for (int layer = layers - 1; layer >= 0; --layer) {
    // A layer over the cap in as many slices as it needs.
    const std::uint64_t slices = cap > 0 ? (layer_elements + cap - 1) / cap : 1;
    const bool split = slices > 1;
    if (split || (cap > 0 && open.elements + layer_elements > cap)) close_open_bucket();
    const std::uint64_t layer_begin = offset;
    parameters_[2 * layer] = Parameter{layer, false, w, w, layer_begin};
    parameters_[2 * layer + 1] = Parameter{layer, true, 1, w, layer_begin + weight_elements};
    offset += layer_elements;
    if (split) {
      // Equal slices, each a whole number of granules (so at most one per granule); the last one
      // is shorter.
      const std::uint64_t slice = round_up((layer_elements + slices - 1) / slices, bucket_unit);
      for (std::uint64_t begin = 0; begin < layer_elements; begin += slice) {
        const std::uint64_t elements = std::min(slice, layer_elements - begin);
        buckets_.push_back(
            Bucket{layer_begin + begin, round_up(elements, bucket_unit), layer, layer});
      }
      offset = buckets_.back().begin + buckets_.back().elements;
      open = Bucket{offset, 0, -1, -1};
      continue;
    }
    if (open.elements == 0) {
      open.begin = layer_begin;
      open.highest_layer = layer;
    }
    open.elements += layer_elements;
    open.lowest_layer = layer;
  }
  close_open_bucket();
  total_elements_ = offset;
  for (const Parameter& p : parameters_) parameter_count_ += p.elements();
}

}  // namespace collbench::dp
