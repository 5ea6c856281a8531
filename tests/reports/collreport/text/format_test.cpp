// collreport's number formatting and parsing, and its table renderings.
#include "text/format.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "text/table.hpp"

namespace collbench::collreport {
namespace {

TEST(CollreportFormat, SizesAreHumanReadable) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(65536), "64 KiB");
  EXPECT_EQ(format_bytes(3 << 19), "1.5 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(format_bytes(1000), "1000 B");
  EXPECT_EQ(format_bytes(100000), "97.66 KiB");
}

TEST(CollreportFormat, ChangesAndPercentages) {
  EXPECT_EQ(format_change(-0.1), "-10.0%");
  EXPECT_EQ(format_change(0.032), "+3.2%");
  EXPECT_EQ(format_percent(0.05), "5%");
  EXPECT_EQ(format_percent(0.125), "12.5%");
  EXPECT_EQ(format_gbps(361.24), "361.2");
  EXPECT_EQ(format_gbps(0.0042), "0.004");
}

TEST(CollreportFormat, ParsesSizesAndPercentages) {
  EXPECT_EQ(parse_bytes("1M", "size"), std::uint64_t{1} << 20);
  EXPECT_EQ(parse_bytes("64KiB", "size"), 65536u);
  EXPECT_EQ(parse_bytes("4096", "size"), 4096u);
  EXPECT_THROW(parse_bytes("1Q", "size"), std::invalid_argument);
  EXPECT_THROW(parse_bytes("M", "size"), std::invalid_argument);
  EXPECT_DOUBLE_EQ(parse_percent("5", "t"), 0.05);
  EXPECT_DOUBLE_EQ(parse_percent("7.5%", "t"), 0.075);
  EXPECT_THROW(parse_percent("0", "t"), std::invalid_argument);
  EXPECT_THROW(parse_percent("5 %", "t"), std::invalid_argument);
}

TEST(CollreportTable, TextAlignsAndMarkdownEscapes) {
  Table table;
  table.columns = {{"name"}, {"value", Align::kRight}};
  table.add_row({"a|b", "1"});
  table.add_row({"long name", "22"});
  EXPECT_EQ(render_text(table),
            "name       value\n"
            "---------  -----\n"
            "a|b            1\n"
            "long name     22\n");
  EXPECT_EQ(render_markdown(table),
            "| name | value |\n"
            "| --- | ---: |\n"
            "| a\\|b | 1 |\n"
            "| long name | 22 |\n");
  EXPECT_THROW(table.add_row({"one cell"}), std::logic_error);
}

}  // namespace
}  // namespace collbench::collreport
