# Include roots that hold one folder each, so that a target sees only the headers of the folders
# it (or what it links) was given: the engine's layers and the apps cannot include upward or
# across. Each root is a folder of the build tree with one link, ROOT/NAME -> the source folder
# (NAME: the folder's own name, or the one given after AS: reports/lib is included as "reports/").
function(collbench_include_root target visibility folder)
  cmake_parse_arguments(ARG "" "AS" "" ${ARGN})
  get_filename_component(name ${folder} NAME)
  if(ARG_AS)
    set(name ${ARG_AS})
  endif()
  set(root ${PROJECT_BINARY_DIR}/include-roots/${target})
  file(MAKE_DIRECTORY ${root})
  if(NOT EXISTS ${root}/${name})
    file(CREATE_LINK ${folder} ${root}/${name} SYMBOLIC)
  endif()
  target_include_directories(${target} ${visibility} ${root})
endfunction()

# collbench_layer(NAME FOLDER DEPENDS... [APART SOURCES...]): one layer of the engine, a static
# library of the .cpp files of bench/FOLDER and its subfolders, whose headers its users include as
# "FOLDER/x.hpp". DEPENDS are the layers below it (and outside libraries); its own headers include
# theirs, so they are passed on to the layers above (PUBLIC), never the other way. APART names
# sources of the folder that a library of their own builds (one that needs an outside library that
# the rest of the layer does not).
function(collbench_layer name folder)
  cmake_parse_arguments(ARG "" "" "APART" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cpp)
  foreach(apart ${ARG_APART})
    list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/${apart})
  endforeach()
  add_library(${name} STATIC ${sources})
  collbench_include_root(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/${folder})
  target_link_libraries(${name} PUBLIC ${ARG_UNPARSED_ARGUMENTS})
  collbench_warnings(${name})
endfunction()
