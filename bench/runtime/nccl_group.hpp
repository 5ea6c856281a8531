// An NCCL group (ncclGroupStart ... ncclGroupEnd) that ends on every path: when a call inside it
// throws, the destructor closes the group, so no later NCCL call lands in a group left open.
#pragma once

#include <nccl.h>

#include "core/errors.hpp"

namespace collbench {

class NcclGroupScope {
 public:
  NcclGroupScope() { CB_NCCL_CHECK(ncclGroupStart()); }
  ~NcclGroupScope() {
    if (open_) ncclGroupEnd();  // unwinding: the error on its way already says what failed
  }
  NcclGroupScope(const NcclGroupScope&) = delete;
  NcclGroupScope& operator=(const NcclGroupScope&) = delete;

  // Ends the group, launching what it holds; throws GpuError when NCCL refuses.
  void end() {
    open_ = false;
    CB_NCCL_CHECK(ncclGroupEnd());
  }

 private:
  bool open_ = true;
};

}  // namespace collbench
