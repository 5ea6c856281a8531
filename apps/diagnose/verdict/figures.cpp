// Looking ranks up in the measurements.
#include "verdict/figures.hpp"

namespace collbench::diagnose {

const RankIdentity* identity_of(const Measurements& measurements, int rank) {
  for (const RankIdentity& identity : measurements.ranks) {
    if (identity.rank == rank) return &identity;
  }
  return nullptr;
}

}  // namespace collbench::diagnose
