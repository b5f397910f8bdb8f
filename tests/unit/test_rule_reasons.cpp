// Every reasonId a rule family can emit, checked against the reason catalog
// and the profile's own names; and every finding the rules make over the
// fixtures, the accuracy workloads and the example, checked against what its
// family declares. A rule that spells a code the catalog does not know fails
// here, not in a user's report.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"

using namespace ljcheck;
namespace fs = std::filesystem;

namespace {

bool isFastFunction(const RecorderProfile& profile, const std::string& name) {
  return profile.fastFunction(name) != nullptr;
}

// Why the subject of `id` is not one the profile can name; empty when it is.
std::string badSubject(const RecorderProfile& profile, const ReasonId& id) {
  const std::string& code = id.code();
  const std::string& subject = id.subject();
  if (code == "NYIBC") {
    auto names = profile.bytecodeNames();
    return std::find(names.begin(), names.end(), subject) == names.end() ? "not a bytecode of the profile" : "";
  }
  if (code == "STITCH" || code == "RETURN" || code == "NYIFFU")
    return subject == kPlainCSubject || isFastFunction(profile, subject) ? "" : "not a fast function of the profile";
  return subject.empty() ? "" : "a subject on a code that takes none";
}

// Records the findings of one rule, by reasonId.
class RecordingSink final : public rules::PredictionSink {
 public:
  void report(const rules::FunctionView&, rules::Finding finding) override { seen.insert(finding.reasonId.str()); }
  std::set<std::string> seen;
};

struct CompiledFile {
  std::string path;
  bytecode::Chunk chunk;
};

std::vector<CompiledFile> compileLuaUnder(const std::vector<std::string>& folders) {
  static const bytecode::OpcodeTable opcodes(defaultProfile().bytecodeNames());
  LuaCompiler compiler;
  std::vector<CompiledFile> files;
  for (const auto& folder : folders) {
    for (const auto& entry : fs::recursive_directory_iterator(std::string(LJCHECK_SOURCE_DIR) + "/" + folder)) {
      if (entry.path().extension() != ".lua") continue;
      std::ifstream in(entry.path());
      std::stringstream source;
      source << in.rdbuf();
      CompileResult compiled = compiler.compile(source.str(), entry.path().string());
      if (!compiled.ok()) continue;  // fixtures of syntax errors
      files.push_back({entry.path().string(), bytecode::readDump(compiled.dump, opcodes, entry.path().string())});
    }
  }
  return files;
}

void runRule(const rules::Rule& rule, const bytecode::Chunk& chunk, const RecorderProfile& profile,
             rules::PredictionSink& sink) {
  flow::ValueMap values(chunk, profile);
  flow::CallGraph calls(chunk, values, profile.param("hotloop", 56), profile.param("hotexit", 10));
  flow::CtypeConstructors constructors{flow::findCtypeConstructors(chunk, values), {}};
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    flow::LoopMap loops(chunk.prototypes[i]);
    rules::FunctionView view{chunk,   i,       chunk.prototypes[i], loops, values, calls, profile,
                             ReasonCatalog::builtin(), constructors};
    rule.check(view, sink);
  }
}

}  // namespace

TEST_CASE("every reasonId a rule family can emit is in the catalog, with a subject the profile names",
          "[rules][registry]") {
  const ReasonCatalog& catalog = ReasonCatalog::builtin();
  for (const RecorderProfile& profile : builtinProfiles()) {
    std::map<std::string, std::string> owner;  // reasonId -> rule family
    for (const auto& rule : rules::allRules()) {
      auto ids = rule->reasons(profile);
      INFO(profile.name << ": " << rule->name());
      CHECK_FALSE(ids.empty());
      for (const ReasonId& id : ids) {
        INFO(id.str());
        const Reason* reason = catalog.find(id.code());
        REQUIRE(reason);
        bool split = id.code() == "STITCH" || id.code() == "RETURN";
        CHECK(reason->kind == (split ? "split" : "traceError"));
        CHECK(badSubject(profile, id).empty());
        // One family per reasonId: two rules never race for the same site.
        auto [it, fresh] = owner.emplace(id.str(), std::string(rule->name()));
        CHECK((fresh || it->second == rule->name()));
      }
    }
  }
}

TEST_CASE("every finding over the fixtures, workloads and example is one its rule family declares",
          "[rules][registry]") {
  auto files = compileLuaUnder({"fixtures", "bench/accuracy/workloads", "examples"});
  REQUIRE(files.size() >= 100);
  for (const RecorderProfile& profile : builtinProfiles()) {
    for (const auto& rule : rules::allRules()) {
      std::set<std::string> declared;
      for (const ReasonId& id : rule->reasons(profile)) declared.insert(id.str());
      RecordingSink sink;
      for (const auto& file : files) runRule(*rule, file.chunk, profile, sink);
      INFO(profile.name << ": " << rule->name());
      // Each family has fixtures that make it speak.
      CHECK_FALSE(sink.seen.empty());
      for (const auto& id : sink.seen) {
        INFO(id);
        CHECK(declared.count(id) == 1);
      }
    }
  }
}

TEST_CASE("a finding with a code the catalog does not know is a programming error, not a default",
          "[rules][registry]") {
  auto files = compileLuaUnder({"examples"});
  REQUIRE_FALSE(files.empty());
  const auto& chunk = files.front().chunk;
  const RecorderProfile& profile = defaultProfile();
  flow::ValueMap values(chunk, profile);
  flow::CallGraph calls(chunk, values, profile.param("hotloop", 56), profile.param("hotexit", 10));
  flow::LoopMap loops(chunk.prototypes.back());
  flow::CtypeConstructors constructors;
  rules::FunctionView view{chunk,   chunk.prototypes.size() - 1, chunk.prototypes.back(), loops, values, calls,
                           profile, ReasonCatalog::builtin(),   constructors};
  rules::CollectingSink sink("example.lua");
  rules::Finding known;
  known.reasonId = ReasonId::traceError("LINNER");
  CHECK_NOTHROW(sink.report(view, known));
  rules::Finding misspelt;
  misspelt.reasonId = ReasonId::traceError("LINER");
  CHECK_THROWS_AS(sink.report(view, misspelt), std::logic_error);
}
