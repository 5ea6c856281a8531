// Tests of byte-size parsing and formatting.
#include "core/byte_size.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace collbench {
namespace {

TEST(ByteSize, ParsesPlainAndSuffixedSizes) {
  EXPECT_EQ(parse_byte_size("8", "-b"), 8u);
  EXPECT_EQ(parse_byte_size("64K", "-b"), 64u * 1024);
  EXPECT_EQ(parse_byte_size("1m", "-b"), 1u << 20);
  EXPECT_EQ(parse_byte_size("8G", "-b"), 8ull << 30);
  EXPECT_EQ(parse_byte_size("2GiB", "-b"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("3KB", "-b"), 3u * 1024);
  EXPECT_EQ(parse_byte_size("1T", "-b"), 1ull << 40);
  EXPECT_EQ(parse_byte_size("100B", "-b"), 100u);
}

TEST(ByteSize, RejectsBadSizesNamingTheValue) {
  for (const char* bad : {"", "0", "0K", "K", "abc", "12X", "1.5M", "-8", "8 M",
                          "99999999999999999999", "20000000T"}) {
    try {
      parse_byte_size(bad, "--min-bytes");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("--min-bytes"), std::string::npos) << message;
      EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(ByteSize, FormatsHumanReadable) {
  EXPECT_EQ(format_byte_size(8), "8 B");
  EXPECT_EQ(format_byte_size(1023), "1023 B");
  EXPECT_EQ(format_byte_size(64 * 1024), "64 KiB");
  EXPECT_EQ(format_byte_size(3 * 512 * 1024), "1.50 MiB");
  EXPECT_EQ(format_byte_size(8ull << 30), "8 GiB");
}

}  // namespace
}  // namespace collbench
