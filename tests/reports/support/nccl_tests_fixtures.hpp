// The nccl-tests output fixtures (tests/reports/fixtures/nccl_tests), for the tests of its reader
// and of `collreport nccl-tests` and `collreport beside`.
#pragma once

#include <string>

namespace collbench::fixtures {

// The path of fixture `name` in tests/reports/fixtures/nccl_tests, and its text.
std::string nccl_tests_fixture(const std::string& name);
std::string nccl_tests_fixture_text(const std::string& name);

}  // namespace collbench::fixtures
