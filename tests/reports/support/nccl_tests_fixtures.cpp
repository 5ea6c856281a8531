// The nccl-tests output fixtures' paths and text.
#include "support/nccl_tests_fixtures.hpp"

#include "support/csv_text.hpp"

namespace collbench::fixtures {

std::string nccl_tests_fixture(const std::string& name) {
  return std::string(COLLBENCH_NCCL_TESTS_FIXTURE_DIR) + "/" + name;
}

std::string nccl_tests_fixture_text(const std::string& name) {
  return read_file(nccl_tests_fixture(name));
}

}  // namespace collbench::fixtures
