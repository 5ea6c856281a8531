# Finds Debian's libfccp-dev (fast-cpp-csv-parser, header only). Defines FCCP::fccp.
find_path(FCCP_INCLUDE_DIR libfccp/csv.h PATHS /usr/include /usr/local/include)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(FCCP REQUIRED_VARS FCCP_INCLUDE_DIR)
if(FCCP_FOUND AND NOT TARGET FCCP::fccp)
  find_package(Threads REQUIRED)
  add_library(FCCP::fccp INTERFACE IMPORTED)
  set_target_properties(FCCP::fccp PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${FCCP_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(FCCP_INCLUDE_DIR)
