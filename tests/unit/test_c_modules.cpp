// Which require names load C modules (c_modules.h), and what a call into
// one predicts: files found on real search paths in a temporary folder,
// modules compiled and analyzed as `ljcheck lint` does.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "ljcheck/analyzer.h"
#include "ljcheck/c_modules.h"
#include "ljcheck/lsp_server.h"
#include "lsp/framing.h"
#include "test_rules_support.h"

using namespace ljcheck;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system's temporary folder, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ljcheck-cmod-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string touch(const std::string& relative) const {
    fs::path file = path / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "";
    return file.string();
  }
  std::string operator/(const std::string& relative) const { return (path / relative).string(); }
};

std::vector<Prediction> predictWith(const std::string& source, const CModules& modules) {
  return analyzeSource(source, "snippet.lua", defaultProfile(), Confidence::Possible, {}, &modules).predictions;
}

const char* kLoop = R"(local lpeg = require("lpeg")
local n = 0
for i = 1, 3000 do
  n = n + lpeg.match("x", "x")
end
return n
)";

}  // namespace

TEST_CASE("a module found on the C path is a C module, with the file as evidence", "[c-modules]") {
  TempDir dir;
  std::string so = dir.touch("lib/lpeg.so");
  CModules modules({{}, dir / "lib/?.so", "", ""});
  auto evidence = modules.evidence("lpeg");
  REQUIRE(evidence);
  CHECK(*evidence == "`lpeg` resolves to " + so + " on the C path");
  CHECK_FALSE(modules.evidence("cjson"));  // found nowhere: not a C module
}

TEST_CASE("dotted module names are searched as folders, and the first template that finds one wins",
          "[c-modules]") {
  TempDir dir;
  dir.touch("a/socket/core.so");
  std::string second = dir.touch("b/socket/core.so");
  std::string templates = dir / "none/?.so" + ";" + dir / "b/?.so" + ";" + dir / "a/?.so";
  CHECK(CModules::searchPath("socket.core", templates) == second);
  CHECK_FALSE(CModules::searchPath("socket.core", dir / "none/?.so"));
}

TEST_CASE("each module is looked up in the folders its name leads to, missing ones included", "[c-modules]") {
  TempDir dir;
  std::string core = dir.touch("b/socket/core.so");
  dir.touch("b/socket.lua");  // socket itself is a Lua module, found first on the Lua path
  std::string cpath = dir / "none/?.so" + ";" + dir / "a/?.so" + ";" + dir / "b/?.so";
  CModules modules({{}, cpath, dir / "b/?.lua", ""});
  auto evidence = modules.evidence("socket.core");  // b/socket listed, then found in it
  REQUIRE(evidence);
  CHECK(*evidence == "`socket.core` resolves to " + core + " on the C path");
  CHECK_FALSE(modules.evidence("socket"));
  CHECK_FALSE(modules.evidence("socket.http"));  // b/socket was listed without it
  CHECK_FALSE(modules.evidence("none.core"));
}

TEST_CASE("a Lua file on the Lua path comes first, as LuaJIT's loaders search", "[c-modules]") {
  TempDir dir;
  dir.touch("lib/json.so");
  dir.touch("share/json.lua");
  CModules modules({{}, dir / "lib/?.so", dir / "share/?.lua", ""});
  CHECK_FALSE(modules.evidence("json"));
}

TEST_CASE("modules declared in the config are C modules without being found", "[c-modules]") {
  CModules modules({{"cjson"}, "", "", ".ljcheck.toml"});
  auto evidence = modules.evidence("cjson");
  REQUIRE(evidence);
  CHECK(*evidence == "`cjson` is declared a C module in .ljcheck.toml");
  CHECK_FALSE(modules.evidence("lpeg"));
}

TEST_CASE("double semicolons in a search path stand for the default", "[c-modules]") {
  CHECK(expandSearchPath("./?.so;;", "/d/?.so") == "./?.so;/d/?.so;");
  CHECK(expandSearchPath(";;lib/?.so", "/d/?.so") == ";/d/?.so;lib/?.so");
  CHECK(expandSearchPath("lib/?.so", "/d/?.so") == "lib/?.so");
  CHECK(luajitDefaultCPath().find("?.so") != std::string::npos);
}

TEST_CASE("a hot call of a C module function predicts STITCH:C with the evidence", "[c-modules][rules]") {
  TempDir dir;
  std::string so = dir.touch("lib/lpeg.so");
  CModules modules({{}, dir / "lib/?.so", "", ""});
  auto ps = predictWith(kLoop, modules);
  const Prediction* p = testing::find(ps, 4, "STITCH:C");
  INFO(testing::listed(ps));
  REQUIRE(p);
  CHECK(p->confidence == Confidence::Certain);
  CHECK(p->reasoning.find("resolves to " + so + " on the C path") != std::string::npos);
  // The same code where lpeg is not found: no claim about lpeg.match.
  CModules none({{}, dir / "none/?.so", "", ""});
  CHECK_FALSE(testing::find(predictWith(kLoop, none), 4, "STITCH:C"));
}

TEST_CASE("methods of what a C module function returns are C, at likely", "[c-modules][rules]") {
  CModules modules({{"lpeg"}, "", "", ".ljcheck.toml"});
  auto ps = predictWith(R"(local lpeg = require "lpeg"
local p = lpeg.P("x")
local n = 0
for i = 1, 3000 do
  n = n + p:match("x")
end
return n
)",
                        modules);
  INFO(testing::listed(ps));
  const Prediction* method = testing::find(ps, 5, "STITCH:C");
  REQUIRE(method);
  CHECK(method->confidence == Confidence::Likely);
  CHECK(method->reasoning.find("`lpeg` is declared a C module in .ljcheck.toml") != std::string::npos);
}

TEST_CASE("a call whose results feed a variable-count operation ends the trace: RETURN:C", "[c-modules][rules]") {
  CModules modules({{"lfs"}, "", "", ""});
  auto ps = predictWith(R"(local lfs = require("lfs")
local t = {}
for i = 1, 3000 do
  t[#t + 1] = tostring(lfs.currentdir())
end
return t
)",
                        modules);
  INFO(testing::listed(ps));
  CHECK(testing::find(ps, 4, "RETURN:C"));
}

TEST_CASE("arithmetic on patterns keeps them C data: their methods are C, and numbers stay numbers",
          "[c-modules][rules]") {
  CModules modules({{"lpeg"}, "", "", ""});
  auto ps = predictWith(R"(local lpeg = require "lpeg"
local p = lpeg.P("a") * lpeg.S("bc")^1 / tostring
local n = 0
for i = 1, 3000 do
  n = n + #p:match("abc")
end
return n
)",
                        modules);
  INFO(testing::listed(ps));
  CHECK(testing::find(ps, 5, "STITCH:C"));
  // A module nobody declared or found: its methods are not claimed.
  CModules none;
  CHECK_FALSE(testing::find(predictWith("local lpeg = require 'lpeg'\nlocal p = lpeg.P('a')\nlocal n = 0\n"
                                        "for i = 1, 3000 do n = n + #p:match('a') end\nreturn n\n",
                                        none),
                            4, "STITCH:C"));
}

TEST_CASE("an operator on a C module's object calls its C metamethod: RETURN:C, naming the evidence",
          "[c-modules][rules]") {
  CModules modules({{"lpeg"}, "", "", ".ljcheck.toml"});
  auto ps = predictWith(R"(local m = require "lpeg"
local lpeg = m
local P = lpeg.P
local any = P(1)
local function count(subject)
  local n = 0
  for i = 1, 3000 do
    local p = any * i
    n = n + p:match(subject)
  end
  return n
end
return count
)",
                        modules);
  INFO(testing::listed(ps));
  const Prediction* op = testing::find(ps, 8, "RETURN:C");
  REQUIRE(op);
  CHECK(op->confidence == Confidence::Certain);
  CHECK(op->reasoning.find("an operand comes from lpeg.P (lpeg is a C module") != std::string::npos);
  CHECK(op->reasoning.find("`:match` is called on one at line 9") != std::string::npos);
  CHECK(op->reasoning.find("calls its __mul") != std::string::npos);
  // The method call the evidence names is C for sure, too.
  const Prediction* method = testing::find(ps, 9, "STITCH:C");
  REQUIRE(method);
  CHECK(method->confidence == Confidence::Certain);
}

TEST_CASE("an operand no number has shows the metamethod by itself", "[c-modules][rules]") {
  CModules modules({{"lpeg"}, "", "", ""});
  auto ps = predictWith(R"(local lpeg = require "lpeg"
local n = 0
for i = 1, 3000 do
  n = n + #(lpeg.P(i) / "")
end
return n
)",
                        modules);
  INFO(testing::listed(ps));
  const Prediction* op = testing::find(ps, 4, "RETURN:C");
  REQUIRE(op);
  CHECK(op->reasoning.find("the other operand is no number, so `/` calls its __div") != std::string::npos);
}

TEST_CASE("arithmetic on what a C module returns is no metamethod call without evidence of objects",
          "[c-modules][rules]") {
  CModules modules({{"socket"}, "", "", ""});
  // Numbers: no method is called on the module's values, and the string
  // method on a string from the module (with a string pattern) shows nothing.
  auto ps = predictWith(R"(local socket = require "socket"
local t0 = socket.gettime()
local host = socket.dns.gethostname()
local d, total = 0, 0
for i = 1, 3000 do
  d = socket.gettime() - t0
  total = total + d * 2
end
return d, total, host:match("^%a+")
)",
                        modules);
  INFO(testing::listed(ps));
  CHECK_FALSE(testing::find(ps, 6, "RETURN:C"));
  CHECK_FALSE(testing::find(ps, 7, "RETURN:C"));
  CHECK(testing::find(ps, 6, "STITCH:C"));  // the call itself is still C
  // A running number beside a value of a module with objects is arithmetic.
  auto mixed = predictWith(R"(local socket = require "socket"
local tcp = socket.tcp()
local t0 = socket.gettime()
local sum = 0
for i = 1, 3000 do
  sum = sum + socket.gettime()
  tcp:send(sum)
end
return t0
)",
                           modules);
  INFO(testing::listed(mixed));
  CHECK_FALSE(testing::find(mixed, 6, "RETURN:C"));
}

TEST_CASE("the language server predicts calls into C modules as lint does", "[c-modules][lsp]") {
  auto framed = [](const nlohmann::json& message) {
    std::ostringstream out;
    lsp::writeFrame(out, message.dump());
    return out.str();
  };
  nlohmann::json open = {{"jsonrpc", "2.0"},
                         {"method", "textDocument/didOpen"},
                         {"params",
                          {{"textDocument",
                            {{"uri", "file:///nowhere/a.lua"}, {"languageId", "lua"}, {"version", 1}, {"text", kLoop}}}}}};
  std::istringstream in(framed({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", nlohmann::json::object()}}) +
                        framed(open) + framed({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}}) +
                        framed({{"jsonrpc", "2.0"}, {"method", "exit"}}));
  std::ostringstream out;
  LanguageServerOptions options;
  options.cModules = std::make_shared<const CModules>(CModuleSearch{{"lpeg"}, "", "", ".ljcheck.toml"});
  REQUIRE(serveLanguageServer(in, out, options) == 0);
  std::istringstream written(out.str());
  bool stitch = false;
  for (lsp::Frame f = lsp::readFrame(written); f.status == lsp::Frame::Status::Message; f = lsp::readFrame(written)) {
    auto message = nlohmann::json::parse(f.body);
    if (message.value("method", "") != "textDocument/publishDiagnostics") continue;
    for (const auto& d : message["params"]["diagnostics"])
      stitch = stitch || (d.value("code", "") == "STITCH:C" && d["range"]["start"]["line"] == 3);
  }
  CHECK(stitch);
}
