// Names of the registration modes and the rules that decide when one cannot run.
#include "core/buffer_registration.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace collbench {

std::string_view name_of(BufferRegistration mode) {
  switch (mode) {
    case BufferRegistration::none:
      return "none";
    case BufferRegistration::local:
      return "local";
    case BufferRegistration::symmetric:
      return "symmetric";
  }
  return "?";
}

const std::vector<BufferRegistration>& all_buffer_registrations() {
  static const std::vector<BufferRegistration> modes = {
      BufferRegistration::none, BufferRegistration::local, BufferRegistration::symmetric};
  return modes;
}

BufferRegistration parse_buffer_registration(std::string_view name) {
  for (BufferRegistration mode : all_buffer_registrations()) {
    if (name == name_of(mode)) return mode;
  }
  throw UsageError(fmt::format("--register '{}' is not one of none, local, symmetric, all", name));
}

std::string registration_config(BufferRegistration mode) {
  if (mode == BufferRegistration::none) return {};
  return fmt::format("register={}", name_of(mode));
}

bool uses_nccl_memory(BufferRegistration mode) {
  return mode != BufferRegistration::none;
}

std::string nccl_version_text(int version_code) {
  // NCCL 2.9 changed the encoding: 2.8.4 is 2804, 2.9.6 is 20906.
  if (version_code >= 10000) {
    return fmt::format("{}.{}.{}", version_code / 10000, version_code % 10000 / 100,
                       version_code % 100);
  }
  return fmt::format("{}.{}.{}", version_code / 1000, version_code % 1000 / 100,
                     version_code % 100);
}

std::string registration_skip_reason(BufferRegistration mode, std::string_view algorithm,
                                     bool takes_registered_buffers, int nccl_version_code) {
  if (mode == BufferRegistration::none) return {};
  if (!takes_registered_buffers) {
    return fmt::format(
        "{} moves data through peer mappings of its own, so NCCL buffer registration "
        "(register={}) does not apply to it",
        algorithm, name_of(mode));
  }
  if (mode == BufferRegistration::symmetric &&
      nccl_version_code < kSymmetricRegistrationMinVersion) {
    return fmt::format("symmetric registration needs NCCL >= {}.{}, this is {}",
                       kSymmetricRegistrationMinVersion / 10000,
                       kSymmetricRegistrationMinVersion % 10000 / 100,
                       nccl_version_text(nccl_version_code));
  }
  return {};
}

}  // namespace collbench
