// The language server's project: kept analyzed between edits, it must say
// what a fresh analyzeFiles (`ljcheck lint`) of the same texts says, and
// analyze again only the files an edit can change.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <fstream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "ljcheck/analyzer.h"
#include "ljcheck/project_analysis.h"

namespace fs = std::filesystem;
using namespace ljcheck;

namespace {

const std::string kMain =
    "local shapes = require(\"shapes\")\n"
    "local total = 0\n"
    "for i = 1, 50000 do total = total + shapes.area(i) end\n"
    "return total\n";
const std::string kShapes =
    "local M = {}\n"
    "function M.area(r)\n"
    "  local scale = function(x) return x * 3 end\n"
    "  return scale(r * r)\n"
    "end\n"
    "return M\n";

using Row = std::tuple<std::string, int, std::string, std::string, std::string, std::string, std::string>;

std::vector<Row> rows(const FileResult& r) {
  std::vector<Row> out;
  for (const auto& p : r.predictions)
    out.emplace_back(p.path, p.line, p.reasonId.str(), std::string(toString(p.severity)),
                     std::string(toString(p.confidence)), p.reasoning, p.masked() ? p.maskedBy->location() : "");
  return out;
}

// A module whose sum runs a loop, and the same without one.
const std::string kLoopingSum =
    "local M = {}\n"
    "function M.sum(t) local s = 0 for i = 1, #t do s = s + t[i] end return s end\n"
    "return M\n";
const std::string kPlainSum =
    "local M = {}\n"
    "function M.sum(t) return t[1] + t[2] + t[3] end\n"
    "return M\n";

// The masking site of the closure (FNEW) at `line`: empty when it is not
// masked, "none" when there is no such prediction.
std::string closureMaskedBy(const std::vector<Row>& rows, int line) {
  for (const auto& r : rows)
    if (std::get<1>(r) == line && std::get<2>(r) == "NYIBC:FNEW") return std::get<6>(r);
  return "none";
}

struct Project {
  fs::path dir = fs::temp_directory_path() / ("ljcheck-project-" + std::to_string(::getpid()));
  std::string main = (dir / "main.lua").string(), shapes = (dir / "shapes.lua").string();
  Project() {
    fs::create_directories(dir);
    write(main, kMain);
    write(shapes, kShapes);
  }
  ~Project() { fs::remove_all(dir); }
  static void write(const std::string& file, const std::string& text) { std::ofstream(file) << text; }
  AnalyzeOptions options() const {
    AnalyzeOptions o;
    o.root = dir.string();
    return o;
  }
  // A kept project analysis of these texts, as the language server holds one between edits.
  std::unique_ptr<ProjectAnalysis> analysis(const std::string& mainText, const std::string& shapesText) const {
    auto project = std::make_unique<ProjectAnalysis>(std::vector<std::string>{main, shapes}, options());
    project->setText(main, mainText);
    project->setText(shapes, shapesText);
    project->update();
    return project;
  }
  // What a fresh lint of these texts says of each file.
  std::vector<std::vector<Row>> lint(const std::string& mainText, const std::string& shapesText) const {
    write(main, mainText);
    write(shapes, shapesText);
    std::vector<std::vector<Row>> out;
    for (const auto& r : analyzeFiles({main, shapes}, options())) out.push_back(rows(r));
    write(main, kMain);
    write(shapes, kShapes);
    return out;
  }
};

}  // namespace

TEST_CASE("a project kept between edits says what a fresh lint of the same texts says", "[project]") {
  Project p;
  ProjectAnalysis project({p.main, p.shapes}, p.options());
  auto same = [&](const std::string& mainText, const std::string& shapesText) {
    auto fresh = p.lint(mainText, shapesText);
    CHECK(rows(*project.result(p.main)) == fresh[0]);
    CHECK(rows(*project.result(p.shapes)) == fresh[1]);
  };
  CHECK(project.update().size() == 2);
  REQUIRE_FALSE(project.result(p.shapes)->predictions.empty());
  CHECK(project.result(p.shapes)->predictions.front().severity == Severity::Blacklist);
  same(kMain, kShapes);

  // The caller's loop, unsaved, runs 5 times: the callee changes with it.
  std::string coldMain = kMain;
  coldMain.replace(coldMain.find("50000"), 5, "5");
  project.setText(p.main, coldMain);
  CHECK(project.update() == std::vector<std::string>{p.main, p.shapes});
  same(coldMain, kShapes);

  project.setText(p.main, kMain);
  CHECK(project.update() == std::vector<std::string>{p.main, p.shapes});
  same(kMain, kShapes);

  // An edit to the caller that gives the callee the same heat (from the
  // same line): the callee is not analyzed again.
  std::string edited = kMain;
  edited.replace(edited.find("total = 0"), 9, "total = 1");
  project.setText(p.main, edited);
  CHECK(project.update() == std::vector<std::string>{p.main});
  same(edited, kShapes);

  // The callee loses its closure, then reverts to its file on disk.
  std::string plain = kShapes;
  plain.replace(plain.find("function(x) return x * 3 end"), 28, "3");
  project.setText(p.shapes, plain);
  CHECK(project.update() == std::vector<std::string>{p.shapes});
  CHECK(project.result(p.shapes)->predictions.empty());
  same(edited, plain);
  project.useDisk(p.shapes);
  project.update();
  same(edited, kShapes);
}

TEST_CASE("a buffer that is no file of the project yet joins it", "[project]") {
  Project p;
  ProjectAnalysis project({p.main}, p.options());
  project.update();
  CHECK_FALSE(project.contains(p.shapes));
  project.setText(p.shapes, kShapes);
  CHECK(project.contains(p.shapes));
  project.update();
  CHECK(rows(*project.result(p.shapes)) == p.lint(kMain, kShapes)[1]);
  CHECK(project.result(p.dir.string() + "/none.lua") == nullptr);
}

TEST_CASE("a ctype with __new from another module follows edits to that module", "[project]") {
  const std::string caller =
      "local types = require(\"shapes\")\n"
      "local n = 0\n"
      "for i = 1, 2000 do n = n + types.point(i, 1).x end\n"
      "return n\n";
  const std::string withTable =
      "local ffi = require(\"ffi\")\n"
      "ffi.cdef[[ struct pa_point { double x, y; }; ]]\n"
      "local M = {}\n"
      "M.point = ffi.metatype(\"struct pa_point\", {\n"
      "  __new = function(ct, x, y) return ffi.new(ct, {x, y}) end,\n"
      "})\n"
      "return M\n";
  std::string withNumbers = withTable;
  withNumbers.replace(withNumbers.find("{x, y}"), 6, "x, y");
  Project p;
  auto project = p.analysis(caller, withTable);
  auto fresh = p.lint(caller, withTable);
  REQUIRE(fresh[0].size() == 1);
  CHECK(std::get<2>(fresh[0][0]) == "BADTYPE");
  CHECK(std::get<1>(fresh[0][0]) == 3);
  CHECK(rows(*project->result(p.main)) == fresh[0]);
  // The module's __new now initializes from numbers: the caller is clean.
  project->setText(p.shapes, withNumbers);
  CHECK(project->update() == std::vector<std::string>{p.main, p.shapes});
  CHECK(project->result(p.main)->predictions.empty());
  CHECK(rows(*project->result(p.main)) == p.lint(caller, withNumbers)[0]);
}

TEST_CASE("a ctype registered by another module's helper follows edits to that helper", "[project]") {
  const std::string caller =
      "local ffi = require(\"ffi\")\n"
      "local h = require(\"shapes\")\n"
      "ffi.cdef[[ struct pa_reg { double x, y; }; ]]\n"
      "local types = {t = {}}\n"
      "local t = types.t\n"
      "h.addtype(types, \"point\", \"struct pa_reg\", {__new = function(ct, x) return ffi.new(ct, {x, x}) end})\n"
      "local n = 0\n"
      "local function run(k) for i = 1, k do n = n + t.point(i).x end end\n"
      "run(2000)\n"
      "return n\n";
  const std::string registering =
      "local ffi = require(\"ffi\")\n"
      "local h = {}\n"
      "function h.addtype(types, name, ct, mt) types.t[name] = ffi.metatype(ct, mt) end\n"
      "return h\n";
  std::string renaming = registering;
  renaming.replace(renaming.find("types.t[name]"), 13, "types.t[name .. \"_\"]");
  Project p;
  auto project = p.analysis(caller, registering);
  auto fresh = p.lint(caller, registering);
  REQUIRE(fresh[0].size() == 1);
  CHECK(std::get<2>(fresh[0][0]) == "BADTYPE");
  CHECK(std::get<1>(fresh[0][0]) == 8);
  CHECK(rows(*project->result(p.main)) == fresh[0]);
  // The helper now stores under another name: `t.point` is no ctype the analyzer knows.
  project->setText(p.shapes, renaming);
  project->update();
  CHECK(project->result(p.main)->predictions.empty());
  CHECK(rows(*project->result(p.main)) == p.lint(caller, renaming)[0]);
}

TEST_CASE("a method of an object another module's function returns gets the calling loop's heat, and follows edits",
          "[project]") {
  const std::string caller =
      "local shapes = require(\"shapes\")\n"
      "local c = shapes.new()\n"
      "for i = 1, 50000 do c:add(i) end\n"
      "for i = 1, 60000 do\n"
      "  for j = 1, 4 do c:add(j) end\n"
      "  c:sub(i)\n"
      "end\n"
      "return c\n";
  const std::string module =
      "local C = {}\n"
      "C.__index = C\n"
      "local M = {}\n"
      "function M.new() return setmetatable({n = 0}, C) end\n"
      "function C:add(x) local f = function() return x end self.n = self.n + f() end\n"
      "function C:sub(x) local f = function() return x end self.n = self.n - f() end\n"
      "return M\n";
  // The object is a plain table now: no class, so no method to link.
  std::string plain = module;
  plain.replace(plain.find("setmetatable({n = 0}, C)"), 24, "{n = 0}");
  Project p;
  auto project = p.analysis(caller, module);
  auto fresh = p.lint(caller, module);
  CHECK(rows(*project->result(p.shapes)) == fresh[1]);
  std::map<int, Row> fnew;
  for (const auto& r : fresh[1])
    if (std::get<2>(r) == "NYIBC:FNEW") fnew[std::get<1>(r)] = r;
  REQUIRE(fnew.count(5));
  INFO(std::get<5>(fnew[5]));
  CHECK(std::get<3>(fnew[5]) == "blacklist");
  // Of the two loops that call add, the one that runs it most is named.
  CHECK(std::get<5>(fnew[5]).find("add, a method of the object shapes.new() returns, is called from the loop at line 5 "
                                  "of main.lua, which runs 240000 times") != std::string::npos);
  // 60,000 calls, but each turn runs the inner loop first: root traces stop there.
  REQUIRE(fnew.count(6));
  INFO(std::get<5>(fnew[6]));
  CHECK(std::get<3>(fnew[6]) == "warn");
  CHECK(std::get<5>(fnew[6]).find("not on every pass: the call at line 6 comes after the loop at line 5 in the same "
                                  "turn, where a root trace stops, in main.lua") != std::string::npos);
  project->setText(p.shapes, plain);
  project->update();
  auto unlinked = p.lint(caller, plain);
  CHECK(rows(*project->result(p.shapes)) == unlinked[1]);
  for (const auto& r : unlinked[1]) CHECK(std::get<3>(r) != "blacklist");
}

TEST_CASE("a class another module exports in a table links its constructor's objects' methods", "[project]") {
  // return {Vector = Vector}: som.Vector.new() and the object's methods.
  const std::string caller =
      "local som = require(\"shapes\")\n"
      "local Vector = som.Vector\n"
      "local v = Vector.new()\n"
      "for i = 1, 50000 do v:append(i) end\n"
      "return v\n";
  const std::string module =
      "local Vector = {}\n"
      "Vector.__index = Vector\n"
      "function Vector.new() return setmetatable({n = 0}, Vector) end\n"
      "function Vector:append(x) local f = function() return x end self.n = self.n + f() end\n"
      "return {Vector = Vector}\n";
  Project p;
  auto fresh = p.lint(caller, module);
  bool found = false;
  for (const auto& r : fresh[1]) {
    if (std::get<2>(r) != "NYIBC:FNEW" || std::get<1>(r) != 4) continue;
    found = true;
    INFO(std::get<5>(r));
    CHECK(std::get<3>(r) == "blacklist");
    CHECK(std::get<5>(r).find("append, a method of the object shapes.Vector.new() returns, is called from the loop at "
                              "line 4 of main.lua, which runs 50000 times") != std::string::npos);
  }
  CHECK(found);
}

TEST_CASE("a library function another module's function returns or tail-calls splits the caller's trace, and follows edits",
          "[project]") {
  const std::string caller =
      "local lib = require(\"shapes\")\n"
      "local n = 0\n"
      "for i = 1, 3000 do\n"
      "  for w in lib.words(\"a bb\") do n = n + #w end\n"
      "end\n"
      "return n\n";
  const std::string module =
      "local M = {}\n"
      "function M.words(s) return s:gmatch(\"%a+\") end\n"
      "return M\n";
  std::string listing = module;
  listing.replace(listing.find("s:gmatch(\"%a+\")"), 15, "ipairs({s})");
  Project p;
  auto project = p.analysis(caller, module);
  auto fresh = p.lint(caller, module);
  CHECK(rows(*project->result(p.main)) == fresh[0]);
  auto has = [](const std::vector<Row>& rows, const std::string& id) {
    return std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return std::get<2>(r) == id; });
  };
  CHECK(has(fresh[0], "STITCH:string.gmatch_aux"));
  // The tail call of string.gmatch leaves no frame of words: its split is the caller's.
  bool tail = false;
  for (const auto& r : fresh[0])
    if (std::get<2>(r) == "STITCH:string.gmatch" && std::get<1>(r) == 4) {
      tail = true;
      CHECK(std::get<5>(r).find("shapes.words tail-calls string.gmatch at line 2 of shapes.lua") != std::string::npos);
    }
  CHECK(tail);
  // words now returns ipairs' iterator, which the recorder compiles.
  project->setText(p.shapes, listing);
  project->update();
  auto edited = p.lint(caller, listing);
  CHECK(rows(*project->result(p.main)) == edited[0]);
  CHECK_FALSE(has(edited[0], "STITCH:string.gmatch_aux"));
  CHECK_FALSE(has(edited[0], "STITCH:string.gmatch"));
}

TEST_CASE("a call into another module's function that runs a loop ends masking, and follows edits", "[project]") {
  const std::string caller =
      "local lib = require(\"shapes\")\n"
      "local function step(t)\n"
      "  local f = function() return 1 end\n"
      "  local s = lib.sum(t)\n"
      "  local g = function() return s end\n"
      "  return f() + g()\n"
      "end\n"
      "local n = 0\n"
      "for _ = 1, 3000 do n = n + step({1, 2, 3}) end\n"
      "return n\n";
  Project p;
  auto project = p.analysis(caller, kLoopingSum);
  auto fresh = p.lint(caller, kLoopingSum);
  CHECK(rows(*project->result(p.main)) == fresh[0]);
  CHECK(closureMaskedBy(fresh[0], 5).empty());  // predicted, not masked
  // sum no longer loops: the closure at line 3 aborts every trace before line 5.
  project->setText(p.shapes, kPlainSum);
  project->update();
  auto edited = p.lint(caller, kPlainSum);
  CHECK(rows(*project->result(p.main)) == edited[0]);
  CHECK(closureMaskedBy(edited[0], 5).find("main.lua:3") != std::string::npos);
  // And back.
  project->setText(p.shapes, kLoopingSum);
  project->update();
  CHECK(rows(*project->result(p.main)) == fresh[0]);
}

TEST_CASE("a local function that calls another module's looping function ends masking where it is called",
          "[project]") {
  const std::string caller =
      "local lib = require(\"shapes\")\n"
      "local function total(t) return lib.sum(t) + 1 end\n"
      "local function step(t)\n"
      "  local f = function() return 1 end\n"
      "  local s = total(t)\n"
      "  local g = function() return s end\n"
      "  return f() + g()\n"
      "end\n"
      "local n = 0\n"
      "for _ = 1, 3000 do n = n + step({1, 2, 3}) end\n"
      "return n\n";
  Project p;
  CHECK(closureMaskedBy(p.lint(caller, kLoopingSum)[0], 6).empty());
  CHECK(closureMaskedBy(p.lint(caller, kPlainSum)[0], 6).find("main.lua:4") != std::string::npos);
}

TEST_CASE("of two equally hot callers, lint and the kept project name the same one: the call in a loop",
          "[project]") {
  // a.lua calls b.f at line 5, in a function c.lua's loop makes hot, and
  // at line 10, in a loop of its own: both likely. Lint analyzes the
  // callers first; the kept project analyzes b.lua first and again in the
  // rounds. Either way the loop is named.
  fs::path dir = fs::temp_directory_path() / ("ljcheck-tie-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::vector<std::string> files = {
      write("c.lua", "local a = require(\"a\")\nlocal n = tonumber(arg and arg[1]) or 100\nfor i = 1, n do a.g() end\n"),
      write("a.lua", "local b = require(\"b\")\nlocal M = {}\n\nfunction M.g()\n  b.f()\nend\n\nfunction M.run(n)\n"
                     "  for i = 1, n do\n    b.f()\n  end\nend\n\nreturn M\n"),
      write("b.lua", "local M = {}\nfunction M.f()\n  local h = function() return 1 end\n  return h\nend\nreturn M\n")};
  AnalyzeOptions options;
  options.root = dir.string();
  const auto fresh = analyzeFiles(files, options);
  ProjectAnalysis project(files, options);
  project.update();
  for (std::size_t i = 0; i < files.size(); ++i) CHECK(rows(*project.result(files[i])) == rows(fresh[i]));
  REQUIRE_FALSE(fresh[2].predictions.empty());
  CHECK(fresh[2].predictions[0].reasonId.str() == "NYIBC:FNEW");
  CHECK(fresh[2].predictions[0].reasoning.find("f is called from the loop at line 9 of a.lua") != std::string::npos);
  fs::remove_all(dir);
}

namespace {

// Lints `files` (name -> text) in a fresh folder; each file's rows, by name.
std::map<std::string, std::vector<Row>> lintTexts(const std::string& name, const std::map<std::string, std::string>& files) {
  fs::path dir = fs::temp_directory_path() / ("ljcheck-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> paths;
  for (const auto& [file, text] : files) {
    std::ofstream(dir / file) << text;
    paths.push_back((dir / file).string());
  }
  AnalyzeOptions options;
  options.root = dir.string();
  options.minConfidence = Confidence::Possible;
  std::map<std::string, std::vector<Row>> out;
  const auto results = analyzeFiles(paths, options);
  for (std::size_t i = 0; i < paths.size(); ++i) out[fs::path(paths[i]).filename().string()] = rows(results[i]);
  ProjectAnalysis kept(paths, options);
  kept.update();
  for (const auto& path : paths) CHECK(rows(*kept.result(path)) == out[fs::path(path).filename().string()]);
  fs::remove_all(dir);
  return out;
}

}  // namespace

TEST_CASE("how a require is written, or which file of a cycle is largest, does not change a finding", "[project]") {
  // Lint orders files by a scan of their text for `require "name"`; one it
  // cannot read (a long bracket of level 1) or a cycle broken elsewhere
  // leaves more to the rounds, which must settle on the same result.
  std::map<std::string, std::string> chain, bracketed;
  chain["main.lua"] = "local m1 = require(\"m1\")\nfor i = 1, 100000 do m1.f(i) end\n";
  for (int k = 1; k <= 6; ++k) {
    const std::string next = "m" + std::to_string(k + 1);
    chain["m" + std::to_string(k) + ".lua"] =
        k < 6 ? "local nxt = require(\"" + next + "\")\nlocal M = {}\nfunction M.f(x) return nxt.f(x) + 1 end\nreturn M\n"
              : "local M = {}\nfunction M.f(x)\n  local g = function(y) return y * 2 end\n  return g(x)\nend\nreturn M\n";
  }
  for (const auto& [file, text] : chain) {
    std::string t = text;
    if (auto at = t.find("require(\""); at != std::string::npos) {
      const auto end = t.find("\")", at);
      t = t.substr(0, at) + "require [=[" + t.substr(at + 9, end - at - 9) + "]=]" + t.substr(end + 2);
    }
    bracketed[file] = t;
  }
  const auto plain = lintTexts("chain-plain", chain);
  const auto odd = lintTexts("chain-bracket", bracketed);
  CHECK(plain == odd);
  REQUIRE_FALSE(plain.at("m6.lua").empty());
  CHECK(std::get<2>(plain.at("m6.lua")[0]) == "NYIBC:FNEW");

  // a.lua and b.lua call each other from loops of 6, with no way out: the
  // counts would grow round the cycle without end.
  std::map<std::string, std::string> cycle = {
      {"main.lua", "local a = require(\"a\")\nfor i = 1, 60 do a.f(i) end\n"},
      {"a.lua", "local b = require(\"b\")\nlocal M = {}\nfunction M.f(x) for i = 1, 6 do b.g(x) end end\nreturn M\n"},
      {"b.lua", "local a = require(\"a\")\nlocal M = {}\nfunction M.g(x)\n  local c = function() return x end\n"
                "  for i = 1, 6 do a.f(x) end\n  return c()\nend\nreturn M\n"}};
  const auto small = lintTexts("cycle-small", cycle);
  cycle["a.lua"] += "-- " + std::string(300, 'x') + "\n";  // now the largest file: the cycle breaks there
  const auto large = lintTexts("cycle-large", cycle);
  CHECK(small.at("b.lua") == large.at("b.lua"));
}

TEST_CASE("require links the root's own file over a closer one only when nothing closer competes", "[project]") {
  // `require("util")` from net/bench.lua loads ./util.lua when the program
  // runs from the root (./?.lua), not net/util.lua (audit 78): with both
  // there, neither is claimed hot. From main.lua at the root, util.lua is
  // linked though spec/util.lua exists too.
  const std::string closure = "local M = {}\nfunction M.align(x)\n  local f = function() return x end\n  return f()\nend\n"
                              "return M\n";
  auto lint = [&](const std::string& name, const std::map<std::string, std::string>& files) {
    fs::path dir = fs::temp_directory_path() / ("ljcheck-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    std::vector<std::string> paths;
    for (const auto& [file, text] : files) {
      fs::create_directories((dir / file).parent_path());
      std::ofstream(dir / file) << text;
      paths.push_back((dir / file).string());
    }
    AnalyzeOptions options;
    options.root = dir.string();
    std::map<std::string, std::string> confidence;  // file -> the closure's confidence
    const auto results = analyzeFiles(paths, options);
    for (std::size_t i = 0; i < paths.size(); ++i)
      for (const auto& p : results[i].predictions)
        if (p.reasonId.str() == "NYIBC:FNEW" && p.line == 3)
          confidence[fs::relative(paths[i], dir).string()] = std::string(toString(p.confidence));
    fs::remove_all(dir);
    return confidence;
  };
  const std::string loop = "local util = require(\"util\")\nfor i = 1, 100000 do util.align(i) end\n";
  auto nested = lint("require-nested", {{"util.lua", closure}, {"net/util.lua", closure}, {"net/bench.lua", loop}});
  INFO("net/util.lua " << nested["net/util.lua"] << ", util.lua " << nested["util.lua"]);
  CHECK(nested["net/util.lua"] != "certain");
  CHECK(nested["util.lua"] != "certain");
  auto atRoot = lint("require-root", {{"util.lua", closure}, {"spec/util.lua", closure}, {"main.lua", loop}});
  CHECK(atRoot["util.lua"] == "certain");
  CHECK(atRoot["spec/util.lua"] != "certain");
  // Only net/util.lua: it is the one linked.
  auto only = lint("require-only", {{"net/util.lua", closure}, {"net/bench.lua", loop}});
  CHECK(only["net/util.lua"] == "certain");
  // util.lua and util/init.lua at the root: `?.lua` comes first in
  // package.path, so util.lua is the one loaded.
  auto init = lint("require-init", {{"util.lua", closure}, {"util/init.lua", closure}, {"main.lua", loop}});
  CHECK(init["util.lua"] == "certain");
  CHECK(init["util/init.lua"] != "certain");
}
