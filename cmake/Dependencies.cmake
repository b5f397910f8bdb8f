# Finds the libraries ljcheck builds on; every one comes from Debian packages
# installed by scripts/setup.sh, except the tree-sitter grammar (npm, fetched
# into third_party/ by the same script).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LUAJIT REQUIRED IMPORTED_TARGET luajit)
pkg_check_modules(TREESITTER REQUIRED IMPORTED_TARGET tree-sitter)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(Threads REQUIRED)

# The module must not link a LuaJIT library of its own: it takes the Lua C API
# from the host process. It only needs the headers.
add_library(ljcheck_lua_headers INTERFACE)
target_include_directories(ljcheck_lua_headers INTERFACE ${LUAJIT_INCLUDE_DIRS})

find_program(LLVM_CONFIG NAMES llvm-config-14 llvm-config REQUIRED)
execute_process(COMMAND ${LLVM_CONFIG} --prefix OUTPUT_VARIABLE LLVM_PREFIX OUTPUT_STRIP_TRAILING_WHITESPACE)
find_path(LIBCLANG_INCLUDE_DIR clang-c/Index.h HINTS "${LLVM_PREFIX}/include" REQUIRED)
find_library(LIBCLANG_LIBRARY NAMES clang clang-14 HINTS "${LLVM_PREFIX}/lib" REQUIRED)
add_library(ljcheck_libclang INTERFACE)
target_link_libraries(ljcheck_libclang INTERFACE ${LIBCLANG_LIBRARY})
target_include_directories(ljcheck_libclang SYSTEM INTERFACE ${LIBCLANG_INCLUDE_DIR})

set(LJCHECK_THIRD_PARTY "${CMAKE_SOURCE_DIR}/third_party")
set(TS_LUA_DIR "${LJCHECK_THIRD_PARTY}/tree-sitter-lua/src")
if(NOT EXISTS "${TS_LUA_DIR}/parser.c")
  message(FATAL_ERROR "tree-sitter Lua grammar missing in ${TS_LUA_DIR}: run scripts/setup.sh")
endif()
add_library(ts_lua STATIC "${TS_LUA_DIR}/parser.c" "${TS_LUA_DIR}/scanner.c")
target_include_directories(ts_lua PRIVATE "${TS_LUA_DIR}")
set_target_properties(ts_lua PROPERTIES C_STANDARD 11)
target_compile_options(ts_lua PRIVATE -w -O2)
target_link_libraries(ts_lua PUBLIC PkgConfig::TREESITTER)
