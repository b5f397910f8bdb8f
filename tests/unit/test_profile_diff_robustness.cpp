// `registry diff --format json` on profiles far larger than LuaJIT's: 100,000
// parameters that all changed, and 100,000 fast functions with some added
// and removed. The JSON is complete, valid and in the text writer's order.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "ljcheck/profile_diff.h"

using namespace ljcheck;

namespace {

std::string paramName(int i) {
  std::string digits = std::to_string(i);
  return "param" + std::string(6 - digits.size(), '0') + digits;
}

}  // namespace

TEST_CASE("a JSON diff of two profiles with 100,000 parameters lists each change once, in order", "[registry][diff][large]") {
  const int count = 100000;
  RecorderProfile from = defaultProfile(), to = defaultProfile();
  for (int i = 0; i < count; ++i) {
    from.params[paramName(i)] = i;
    to.params[paramName(i)] = i % 10 == 0 ? i : i + 1;  // every tenth unchanged
    from.fastFunctions.push_back({"made.up" + std::to_string(i), ""});
    to.fastFunctions.push_back({"made.up" + std::to_string(i + 5), ""});  // 5 added, 5 removed
  }
  from.index();
  to.index();
  const ProfileDiff d = diffProfiles(from, to);
  REQUIRE(d.params.size() == count - count / 10);
  CHECK(d.fastFunctions.added.size() == 5);
  CHECK(d.fastFunctions.removed.size() == 5);

  std::ostringstream out;
  writeDiffJson(out, d);
  nlohmann::ordered_json j;
  REQUIRE_NOTHROW(j = nlohmann::ordered_json::parse(out.str()));
  const auto& params = j.at("params");
  REQUIRE(params.size() == d.params.size());
  std::size_t i = 0;
  bool inOrder = true, sameValues = true;
  for (const auto& [name, change] : params.items()) {
    const ValueChange& expected = d.params[i++];
    inOrder = inOrder && name == expected.name;
    sameValues = sameValues && change.at("from") == expected.from && change.at("to") == expected.to;
  }
  CHECK(inOrder);
  CHECK(sameValues);
  CHECK(params.at("param000001") == nlohmann::ordered_json{{"from", "1"}, {"to", "2"}});
  CHECK_FALSE(params.contains("param000010"));
  CHECK(j.at("fastFunctions").at("added").size() == 5);
  CHECK(j.at("identical") == false);
}

TEST_CASE("a name listed twice keeps its first place and its last value, as before", "[registry][diff]") {
  ProfileDiff d;
  d.params = {{"b", "1", "2"}, {"a", "3", "4"}, {"b", "5", "6"}};
  std::ostringstream out;
  writeDiffJson(out, d);
  const auto params = nlohmann::ordered_json::parse(out.str()).at("params");
  CHECK(params.dump() == R"({"b":{"from":"5","to":"6"},"a":{"from":"3","to":"4"}})");
}
