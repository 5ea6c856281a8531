// collreport_fixtures DIR: writes the report test fixtures (tests/reports/fixtures/) into DIR.
#include <fstream>
#include <iostream>

#include "support/fixture_reports.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: collreport_fixtures DIR\n";
    return 2;
  }
  for (const collbench::fixtures::FixtureFile& fixture : collbench::fixtures::fixture_files()) {
    const std::string path = std::string(argv[1]) + "/" + fixture.name;
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << fixture.text;
    if (!file.flush()) {
      std::cerr << "collreport_fixtures: cannot write " << path << "\n";
      return 1;
    }
    std::cout << path << "\n";
  }
  return 0;
}
