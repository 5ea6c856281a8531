// Tests of the registration modes: names, the config part, NCCL version text and when a mode is
// skipped (the version gate and the implementations' capability).
#include "core/buffer_registration.hpp"

#include <gtest/gtest.h>

#include <string>

#include "algorithms/algorithm_registry.hpp"
#include "core/algorithm.hpp"
#include "core/errors.hpp"

namespace collbench {
namespace {

TEST(BufferRegistration, NamesParseBackAndBadNamesAreRefused) {
  ASSERT_EQ(all_buffer_registrations().size(), 3u);
  for (BufferRegistration mode : all_buffer_registrations()) {
    EXPECT_EQ(parse_buffer_registration(name_of(mode)), mode);
  }
  EXPECT_EQ(parse_buffer_registration("symmetric"), BufferRegistration::symmetric);
  for (const char* bad : {"", "Local", "sym", "all", "window"}) {
    try {
      parse_buffer_registration(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("--register '") + bad + "'"),
                std::string::npos)
          << error.what();
    }
  }
}

TEST(BufferRegistration, ConfigPartFollowsTheSettings) {
  EXPECT_EQ(registration_config(BufferRegistration::none), "");
  EXPECT_EQ(registration_config(BufferRegistration::local), "register=local");
  EXPECT_EQ(registration_config(BufferRegistration::symmetric), "register=symmetric");
}

// Only symmetric buffers come from ncclMemAlloc: the rule the case buffers and ring_sendrecv's
// scratch both follow, so that NCCL maps both sides of a send/recv or neither.
TEST(BufferRegistration, RegisteredBuffersComeFromNcclMemAlloc) {
  EXPECT_FALSE(uses_nccl_memory(BufferRegistration::none));
  EXPECT_TRUE(uses_nccl_memory(BufferRegistration::local));
  EXPECT_TRUE(uses_nccl_memory(BufferRegistration::symmetric));
}

TEST(BufferRegistration, VersionCodesReadAsNcclWritesThem) {
  EXPECT_EQ(nccl_version_text(22803), "2.28.3");
  EXPECT_EQ(nccl_version_text(22700), "2.27.0");
  EXPECT_EQ(nccl_version_text(22605), "2.26.5");
  EXPECT_EQ(nccl_version_text(21913), "2.19.13");
  EXPECT_EQ(nccl_version_text(2804), "2.8.4");  // before 2.9: major*1000 + minor*100 + patch
  EXPECT_EQ(nccl_version_text(30001), "3.0.1");
}

TEST(BufferRegistration, SymmetricNeedsNccl227) {
  const auto reason = [](int version) {
    return registration_skip_reason(BufferRegistration::symmetric, "nccl", true, version);
  };
  EXPECT_EQ(reason(22605), "symmetric registration needs NCCL >= 2.27, this is 2.26.5");
  EXPECT_EQ(reason(2804), "symmetric registration needs NCCL >= 2.27, this is 2.8.4");
  EXPECT_EQ(reason(22700), "");
  EXPECT_EQ(reason(22803), "");
  EXPECT_EQ(reason(30000), "");
  // Local registration and plain buffers need nothing newer.
  EXPECT_EQ(registration_skip_reason(BufferRegistration::local, "nccl", true, 21903), "");
  EXPECT_EQ(registration_skip_reason(BufferRegistration::none, "nccl", true, 2804), "");
}

TEST(BufferRegistration, ImplementationsThatMapPeersThemselvesAreSkipped) {
  for (BufferRegistration mode : {BufferRegistration::local, BufferRegistration::symmetric}) {
    const std::string reason = registration_skip_reason(mode, "oneshot", false, 22803);
    EXPECT_NE(reason.find("oneshot"), std::string::npos) << reason;
    EXPECT_NE(reason.find(std::string("register=") + std::string(name_of(mode))), std::string::npos)
        << reason;
    // The capability decides before the version: an old NCCL does not change the reason.
    EXPECT_EQ(registration_skip_reason(mode, "oneshot", false, 22605), reason);
  }
  EXPECT_EQ(registration_skip_reason(BufferRegistration::none, "oneshot", false, 22803), "");
}

// The registry declares which implementations move data only through NCCL: NCCL itself for every
// collective, and ring_sendrecv; the peer-kernel algorithms map memory themselves.
TEST(BufferRegistration, RegistryDeclaresWhoTakesRegisteredBuffers) {
  int nccl_entries = 0;
  for (const AlgorithmEntry& entry : algorithm_registry()) {
    const bool expected = entry.name == "nccl" || entry.name == "ring_sendrecv";
    EXPECT_EQ(entry.capabilities.registered_buffers, expected) << entry.name;
    if (entry.name == "nccl") ++nccl_entries;
  }
  EXPECT_EQ(nccl_entries, static_cast<int>(collective_registry().size()));
}

}  // namespace
}  // namespace collbench
