// A client message nested thousands of levels deep (found by fuzz/fuzz_lsp)
// used to overflow the server's stack while the message was copied and its
// id echoed back. It now gets a JSON-RPC error and the server reads on.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ljcheck/lsp_server.h"
#include "lsp/framing.h"
#include "lsp/json_nesting.h"

using namespace ljcheck;

namespace {

std::string framed(const std::string& body) {
  std::ostringstream out;
  lsp::writeFrame(out, body);
  return out.str();
}

std::vector<nlohmann::json> replies(const std::string& written) {
  std::istringstream in(written);
  std::vector<nlohmann::json> out;
  for (lsp::Frame f = lsp::readFrame(in); f.status == lsp::Frame::Status::Message; f = lsp::readFrame(in))
    out.push_back(nlohmann::json::parse(f.body));
  return out;
}

}  // namespace

TEST_CASE("a message nested 100,000 deep gets Invalid Request and the server keeps serving", "[lsp]") {
  const std::string deep(100000, '['), closed(100000, ']');
  std::istringstream in(framed("{\"jsonrpc\":\"2.0\",\"id\":" + deep + closed + ",\"method\":\"x\"}") +
                        framed("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":" + deep + closed + "}") +
                        framed(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") +
                        framed(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") +
                        framed(R"({"jsonrpc":"2.0","method":"exit"})"));
  std::ostringstream out;
  CHECK(serveLanguageServer(in, out, LanguageServerOptions{}) == 0);
  auto answers = replies(out.str());
  REQUIRE(answers.size() == 4);
  for (int i : {0, 1}) {
    CHECK(answers[i]["error"]["code"] == -32600);
    CHECK(answers[i]["id"].is_null());
    CHECK(answers[i]["error"]["message"] == "message nested more than 64 levels deep");
  }
  CHECK(answers[2]["id"] == 1);
  CHECK(answers[2]["result"].contains("capabilities"));
  CHECK(answers[3]["id"] == 2);
}

TEST_CASE("brackets inside JSON strings do not count as nesting", "[lsp]") {
  CHECK_FALSE(lsp::nestedDeeperThan("{\"text\":\"" + std::string(1000, '{') + "\\\"\"}", 64));
  CHECK(lsp::nestedDeeperThan(std::string(65, '['), 64));
  CHECK_FALSE(lsp::nestedDeeperThan(std::string(64, '['), 64));
}
