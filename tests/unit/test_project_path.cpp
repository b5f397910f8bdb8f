// Paths as reports show them (project_path.h): relative to the project root
// when inside it, absolute and normalized when not, whatever form the path
// was given in.
#include <catch2/catch.hpp>

#include "ljcheck/project_path.h"

using ljcheck::ProjectRoot;

TEST_CASE("a path inside the root is shown relative to it, normalized", "[project-path]") {
  const ProjectRoot root("", "/work/app");  // the root is the working folder
  CHECK(root.show("src/a.lua") == "src/a.lua");
  CHECK(root.show("a.lua") == "a.lua");
  CHECK(root.show("./src/a.lua") == "src/a.lua");
  CHECK(root.show("src//a.lua") == "src/a.lua");
  CHECK(root.show("src/./a.lua") == "src/a.lua");
  CHECK(root.show("src/../lib/a.lua") == "lib/a.lua");
  CHECK(root.show("/work/app/src/a.lua") == "src/a.lua");
  CHECK(root.show(".hidden/a.lua") == ".hidden/a.lua");
  CHECK(root.show("..a/b.lua") == "..a/b.lua");
}

TEST_CASE("a path outside the root is shown absolute", "[project-path]") {
  const ProjectRoot root("", "/work/app");
  CHECK(root.show("../other/a.lua") == "/work/other/a.lua");
  CHECK(root.show("src/../../other/a.lua") == "/work/other/a.lua");
  CHECK(root.show("/usr/share/lua/5.1/a.lua") == "/usr/share/lua/5.1/a.lua");
}

TEST_CASE("under a root other than the working folder, relative paths are taken from the working folder",
          "[project-path]") {
  const ProjectRoot root("src", "/work/app");
  CHECK(root.path() == "/work/app/src");
  CHECK(root.show("src/a.lua") == "a.lua");
  CHECK(root.show("lib/a.lua") == "/work/app/lib/a.lua");
  const ProjectRoot above("/work", "/work/app");
  CHECK(above.show("src/a.lua") == "app/src/a.lua");
  const ProjectRoot shown("/work/app/", "/work/app/");  // trailing '/' on both
  CHECK(shown.show("src/a.lua") == "src/a.lua");
}
