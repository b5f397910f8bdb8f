// Recorder profiles loaded from registry/profiles/*.json.
#include "ljcheck/profile.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "builtin_data.h"

namespace ljcheck {

namespace {

// A profile file read in one pass over the JSON parser's events, straight into
// the profile's fields. Lint loads the default profile on every run, and
// building a JSON document first, then copying out of it, took three times as
// long (bench/startup.sh). Unknown fields are skipped; a required field that
// is missing, or a known one of the wrong type, is an error naming it.
class ProfileReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit ProfileReader(RecorderProfile& profile) : p_(profile) {}

  void read(std::string_view text) {
    if (!nlohmann::json::sax_parse(text, this)) fail(parseError_);
    for (const char* field : {"name", "luajit", "arch", "os", "jitFlags", "traceErrors", "bytecodes",
                              "fastFunctions", "nyiBytecodes", "neverStitch", "params"})
      if (!seen_.count(field)) fail(std::string("key '") + field + "' not found");
    if (!versionSeen_) fail("key 'luajit.version' not found");
  }

  bool null() override { return value({Kind::null}); }
  bool boolean(bool b) override { return value({Kind::boolean, b}); }
  bool number_integer(number_integer_t n) override { return value({Kind::integer, false, n}); }
  bool number_unsigned(number_unsigned_t n) override {
    if (n > static_cast<number_unsigned_t>(INT64_MAX)) return value({Kind::other});
    return value({Kind::integer, false, static_cast<std::int64_t>(n)});
  }
  bool number_float(number_float_t, const string_t&) override { return value({Kind::other}); }
  bool string(string_t& s) override { return value({Kind::string, false, 0, &s}); }
  bool binary(binary_t&) override { return value({Kind::other}); }
  bool start_object(std::size_t) override { return open(Kind::object); }
  bool key(string_t& k) override {
    frames_.back().key.assign(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(Kind::array); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    parseError_ = e.what();
    return false;
  }

 private:
  enum class Kind { null, boolean, integer, string, other, object, array };
  struct Value {
    Kind kind;
    bool boolean = false;
    std::int64_t integer = 0;
    const std::string* text = nullptr;
  };
  struct Frame {
    bool array;
    std::string key;  // in an object: the key of the value being read
  };

  [[noreturn]] void fail(const std::string& what) const { throw std::runtime_error("recorder profile: " + what); }

  // Where the parser is: "bytecodes[].name".
  std::string path() const {
    std::string text;
    for (const auto& f : frames_) text += f.array ? "[]" : (text.empty() ? "" : ".") + f.key;
    return text;
  }
  const std::string& str(const Value& v) const {
    if (v.kind != Kind::string) fail(path() + " must be a string");
    return *v.text;
  }
  bool flag(const Value& v) const {
    if (v.kind != Kind::boolean) fail(path() + " must be true or false");
    return v.boolean;
  }
  std::int64_t integer(const Value& v) const {
    if (v.kind != Kind::integer) fail(path() + " must be an integer");
    return v.integer;
  }

  // A value directly in the top-level object: checks its kind, notes it seen.
  void topLevel(const std::string& key, Kind kind) {
    static const std::map<std::string, Kind, std::less<>> kKinds = {
        {"name", Kind::string},          {"description", Kind::string},   {"arch", Kind::string},
        {"os", Kind::string},            {"gc64", Kind::boolean},         {"luajit", Kind::object},
        {"returnsFunction", Kind::object}, {"recorderErrors", Kind::object}, {"params", Kind::object},
        {"hotCounters", Kind::object},
        {"jitFlags", Kind::array},       {"traceErrors", Kind::array},    {"bytecodes", Kind::array},
        {"fastFunctions", Kind::array},  {"nyiBytecodes", Kind::array},   {"neverStitch", Kind::array},
        {"cFunctions", Kind::array}};
    static const std::map<Kind, const char*> kNames = {{Kind::string, "a string"}, {Kind::boolean, "true or false"},
                                                        {Kind::object, "an object"}, {Kind::array, "an array"}};
    auto it = kKinds.find(key);
    if (it == kKinds.end()) return;
    if (it->second != kind) fail(key + " must be " + kNames.at(it->second));
    seen_.insert(key);
  }

  bool open(Kind kind) {
    const std::size_t depth = frames_.size();
    if (depth == 1) {
      topLevel(frames_[0].key, kind);
    } else if (depth == 2 && frames_[1].array && kind == Kind::object) {  // an element of a list of objects
      const std::string& list = frames_[0].key;
      elementKeys_ = 0;
      if (list == "traceErrors") p_.traceErrors.emplace_back();
      else if (list == "bytecodes") p_.bytecodes.push_back({"", "none", "none", "none", "none"});
      else if (list == "fastFunctions") p_.fastFunctions.emplace_back();
    } else if (depth == 2 && frames_[0].key == "recorderErrors" && kind == Kind::array) {
      p_.recorderErrors[frames_[1].key];  // a recorder that raises none is listed too
    }
    frames_.push_back({kind == Kind::array, {}});
    return true;
  }

  bool close() {
    if (frames_.size() == 3 && frames_[1].array && !frames_[2].array) {  // the end of a list's element
      const std::string& list = frames_[0].key;
      const bool named = elementKeys_ & 1, hasMessage = elementKeys_ & 2;
      if ((list == "traceErrors" && !(named && hasMessage)) ||
          ((list == "bytecodes" || list == "fastFunctions") && !named))
        fail(list + "[] needs " + (named ? "a message" : "a name"));
    }
    frames_.pop_back();
    return true;
  }

  bool value(const Value& v) {
    const std::size_t depth = frames_.size();
    if (depth == 0) fail("the file is not a JSON object");
    const std::string& top = frames_[0].key;
    if (depth == 1) {
      topLevel(top, v.kind);
      if (top == "name") p_.name = str(v);
      else if (top == "description") p_.description = str(v);
      else if (top == "arch") p_.arch = str(v);
      else if (top == "os") p_.os = str(v);
      else if (top == "gc64") p_.gc64 = flag(v);
    } else if (depth == 2 && frames_[1].array) {
      if (top == "jitFlags") p_.jitFlags.push_back(str(v));
      else if (top == "nyiBytecodes") p_.nyiBytecodes.insert(str(v));
      else if (top == "neverStitch") p_.neverStitch.insert(str(v));
      else if (top == "cFunctions") p_.cFunctions.insert(str(v));
    } else if (depth == 2) {
      const std::string& key = frames_[1].key;
      if (top == "luajit") {
        if (key == "version") {
          p_.version = str(v);
          versionSeen_ = true;
        } else if (key == "versionNum") p_.versionNum = static_cast<int>(integer(v));
        else if (key == "openresty") p_.openresty = flag(v);
      } else if (top == "returnsFunction") {
        p_.returnsFunction[key] = str(v);
      } else if (top == "params" && v.kind == Kind::integer) {
        p_.params[key] = v.integer;
      } else if (top == "hotCounters") {
        p_.hotCounters[key] = integer(v);
      }
    } else if (depth == 3 && frames_[1].array && !frames_[2].array) {
      element(top, frames_[2].key, v);
    } else if (depth == 3 && top == "recorderErrors" && frames_[2].array) {
      p_.recorderErrors[frames_[1].key].push_back(str(v));
    }
    return true;
  }

  // A field of the element being read of the list `list`.
  void element(const std::string& list, const std::string& key, const Value& v) {
    if (key == "name") elementKeys_ |= 1;
    if (key == "message") elementKeys_ |= 2;
    if (list == "traceErrors") {
      if (key == "name") p_.traceErrors.back().name = str(v);
      else if (key == "message") p_.traceErrors.back().message = str(v);
    } else if (list == "bytecodes") {
      BytecodeDef& b = p_.bytecodes.back();
      if (key == "name") b.name = str(v);
      else if (key == "a") b.a = str(v);
      else if (key == "b") b.b = str(v);
      else if (key == "cd") b.cd = str(v);
      else if (key == "mm") b.mm = str(v);
    } else if (list == "fastFunctions") {
      if (key == "name") p_.fastFunctions.back().name = str(v);
      else if (key == "recorder" && v.kind == Kind::string) p_.fastFunctions.back().recorder = *v.text;  // null: none
    }
  }

  RecorderProfile& p_;
  std::vector<Frame> frames_;
  std::set<std::string> seen_;  // top-level keys
  bool versionSeen_ = false;
  unsigned elementKeys_ = 0;  // of the list element being read: 1 name, 2 message
  std::string parseError_;
};

}  // namespace

RecorderProfile RecorderProfile::fromJson(std::string_view text) {
  RecorderProfile p;
  ProfileReader(p).read(text);
  p.id = computeProfileId(p.facts());
  p.index();
  return p;
}

void RecorderProfile::index() {
  fastFunctionIndex.clear();
  libraryTables.clear();
  auto addTables = [this](const std::string& function) {
    for (std::size_t dot = function.find('.'); dot != std::string::npos; dot = function.find('.', dot + 1))
      libraryTables.insert(function.substr(0, dot));
  };
  for (std::size_t i = 0; i < fastFunctions.size(); ++i) {
    fastFunctionIndex.emplace(std::hash<std::string_view>{}(fastFunctions[i].name), i);
    addTables(fastFunctions[i].name);
  }
  for (const auto& c : cFunctions) addTables(c);
}

bool RecorderProfile::isLibraryTable(std::string_view table) const {
  return libraryTables.find(table) != libraryTables.end();
}

ProfileFacts RecorderProfile::facts() const {
  ProfileFacts f;
  f.version = version;
  f.arch = arch;
  f.os = os;
  f.jitFlags = jitFlags;
  f.bytecodeNames = bytecodeNames();
  for (const auto& ff : fastFunctions) f.fastFunctionNames.push_back(ff.name);
  for (const auto& te : traceErrors) f.traceErrorMessages.push_back(te.message);
  return f;
}

std::vector<std::string> RecorderProfile::bytecodeNames() const {
  std::vector<std::string> names;
  names.reserve(bytecodes.size());
  for (const auto& b : bytecodes) names.push_back(b.name);
  return names;
}

const FastFunctionDef* RecorderProfile::fastFunction(std::string_view n) const {
  if (!fastFunctionIndex.empty()) {
    std::size_t first = SIZE_MAX;  // the first of a name wins, as in a scan
    auto [it, end] = fastFunctionIndex.equal_range(std::hash<std::string_view>{}(n));
    for (; it != end; ++it)
      if (it->second < first && fastFunctions[it->second].name == n) first = it->second;
    return first == SIZE_MAX ? nullptr : &fastFunctions[first];
  }
  for (const auto& f : fastFunctions)  // not indexed yet
    if (f.name == n) return &f;
  return nullptr;
}

std::optional<int> RecorderProfile::traceErrorCode(std::string_view n) const {
  for (size_t i = 0; i < traceErrors.size(); ++i)
    if (traceErrors[i].name == n) return static_cast<int>(i);
  return std::nullopt;
}

std::int64_t RecorderProfile::param(std::string_view n, std::int64_t fallback) const {
  auto it = params.find(std::string(n));
  return it == params.end() ? fallback : it->second;
}

// lj_trace.c: a loop's hot counter starts at hotloop * HOTCOUNT_LOOP - 1 and
// loses loopStep per iteration; a trace is tried when it goes below zero.
// Each abort of a root trace (penalty_pc) sets the start's counter to its
// penalty: PENALTY_MIN at first, then twice the last plus up to
// 2^PENALTY_RNDBITS - 1 at random; the abort whose new penalty passes
// PENALTY_MAX blacklists the start. Counted with the largest random bits,
// so that this many runs blacklist on every run of the program.
RecorderProfile::Blacklisting RecorderProfile::loopBlacklisting() const { return blacklisting("loopStep"); }
RecorderProfile::Blacklisting RecorderProfile::entryBlacklisting() const { return blacklisting("callStep"); }

// Every counter starts at hotloop * loopStep (lj_dispatch.c:
// lj_dispatch_init_hotcount);
// a loop counts down by loopStep per turn, a function by callStep per call.
RecorderProfile::Blacklisting RecorderProfile::blacklisting(const char* stepKey) const {
  auto constant = [this](const char* key) {
    auto it = hotCounters.find(key);
    return it == hotCounters.end() ? 0 : it->second;
  };
  std::int64_t loopStep = constant("loopStep"), step = constant(stepKey);
  std::int64_t min = constant("penaltyMin"), max = constant("penaltyMax");
  std::int64_t bits = constant("penaltyRandomBits"), hotloop = param("hotloop", 0);
  if (loopStep <= 0 || step <= 0 || min <= 0 || max < min || bits < 0 || bits > 16 || hotloop <= 0) return {};
  Blacklisting b;
  b.runs = b.fewestRuns = static_cast<long>((hotloop * loopStep - 1) / step + 1);
  b.aborts = 1;
  for (std::int64_t penalty = min; penalty <= max; penalty = 2 * penalty + ((std::int64_t{1} << bits) - 1)) {
    b.runs += static_cast<long>(penalty / step + 1);
    ++b.aborts;
  }
  for (std::int64_t penalty = min; penalty <= max; penalty = 2 * penalty) b.fewestRuns += static_cast<long>(penalty / step + 1);
  return b;
}

namespace {

// The embedded profiles, each parsed on first use: a lint needs one of them,
// and parsing every profile at start-up cost a third of a one-file lint.
// The vector is sized once, so a parsed profile never moves.
class BuiltinProfiles {
 public:
  BuiltinProfiles() {
    while (kProfileFiles[size_].name) ++size_;
    profiles_.resize(size_);
    parsed_ = std::make_unique<std::once_flag[]>(size_);
  }
  std::size_t size() const { return size_; }
  const RecorderProfile& at(std::size_t i) {
    std::call_once(parsed_[i], [this, i] {
      profiles_[i] = RecorderProfile::fromJson(kProfileFiles[i].contents);
      profiles_[i].supported = true;
    });
    return profiles_[i];
  }
  // A profile's file is named after it: "<name>.json".
  bool fileNamed(std::size_t i, std::string_view name) const {
    const std::string_view file = kProfileFiles[i].name;
    return file.size() == name.size() + 5 && file.substr(0, name.size()) == name && file.substr(name.size()) == ".json";
  }
  const std::vector<RecorderProfile>& all() {
    for (std::size_t i = 0; i < size_; ++i) at(i);
    return profiles_;
  }

 private:
  std::size_t size_ = 0;
  std::vector<RecorderProfile> profiles_;
  std::unique_ptr<std::once_flag[]> parsed_;
};

BuiltinProfiles& builtins() {
  static BuiltinProfiles profiles;
  return profiles;
}

}  // namespace

const std::vector<RecorderProfile>& builtinProfiles() { return builtins().all(); }

const RecorderProfile* findProfile(std::string_view nameOrId) {
  BuiltinProfiles& b = builtins();
  for (std::size_t i = 0; i < b.size(); ++i)  // by short name: parse that file alone
    if (b.fileNamed(i, nameOrId) && b.at(i).name == nameOrId) return &b.at(i);
  for (const auto& p : b.all())
    if (p.name == nameOrId || p.id == nameOrId) return &p;
  return nullptr;
}

const RecorderProfile& defaultProfile() {
  // The embedded VM is Debian's LuaJIT; tests check that this profile equals it.
  const RecorderProfile* p = findProfile(LJCHECK_DEFAULT_PROFILE);
  if (!p) throw std::runtime_error("default recorder profile missing from the registry");
  return *p;
}

}  // namespace ljcheck
