// ljcheck.scope (see scope_binding.h and docs/scopes.md). mark and done are
// small Lua functions over the FFI, like ljcheck.zone: a table lookup of the
// label's id, then a call through an FFI function pointer into C++, which the
// JIT compiles into the caller's trace (no Lua-to-C call, so no stitch) and
// which allocates nothing in the Lua heap. Only the first mark of a new label
// calls a C function to register it. The C++ side reads the monotonic clock
// and the heap in bytes (LUA_GCCOUNT * 1024 + LUA_GCCOUNTB) and updates the
// tree (the clock: scope_clock.h). root, convert and reset are ordinary C functions: they are not on the
// steady-state path.
#include "scope_binding.h"

#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "ljcheck/timeline.h"
#include "lua_api.h"
#include "lua_binding.h"
#include "exit_release.h"
#include "scope_tree.h"

namespace ljcheck {
namespace {

constexpr const char* kNodeType = "ljcheck.ScopeNode";

char kScopeStateKey;   // registry key of the VM's ScopeState userdata
char kScopeThreadKey;  // registry key anchoring the thread the state reads the heap through

// Lives in Lua memory: freed at a plain os.exit like the module's other
// objects there (exit_release.h); the tree is then gone, and nothing runs after.
struct ScopeState final : ReleasedAtExit {
  lua_State* L = nullptr;  // any thread of the VM: the heap count is global to it
  ScopeClock clock;
  std::optional<ScopeTree> tree;
  ScopeState() {
    tree.emplace(ScopeTree::kDefaultSeed);
    tree->clock = &clock;
  }
  void releaseAtExit() noexcept override { tree.reset(); }
  ScopeReading readNow() const {
    std::int64_t ticks = clock.ticks();
    return {ticks, static_cast<std::int64_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0)};
  }
};

// The FFI entry points: no Lua API call but the heap count, no Lua error.
extern "C" std::int32_t ljcheckScopeMark(void* state, std::int32_t label) {
  auto& s = *static_cast<ScopeState*>(state);
  if (!s.tree->knownLabel(label)) return 1;
  s.tree->mark(label, s.readNow());
  return 0;
}

extern "C" std::int32_t ljcheckScopeDone(void* state) {
  auto& s = *static_cast<ScopeState*>(state);
  return s.tree->done(s.readNow()) ? 0 : 1;
}

// Arguments: ffi, the ScopeState (light userdata), the two entry points
// (light userdata), the intern function. Returns mark, done. Both are vararg
// for the reason zones.cpp gives: no trace of their own starts there.
constexpr const char* kScopeChunk = R"lua(
local ffi, state, markEntry, doneEntry, intern = ...
local markC = ffi.cast("int32_t (*)(void *, int32_t)", markEntry)
local doneC = ffi.cast("int32_t (*)(void *)", doneEntry)
local st = ffi.cast("void *", state)
local ids = {}
local error, type = error, type
local function mark(...)
  local label = ...
  local id = ids[label]
  if id == nil then
    if type(label) ~= "string" then
      error("ljcheck.scope.mark(label): the label must be a string, got a " .. type(label), 2)
    end
    id = intern(label)
    ids[label] = id
  end
  markC(st, id)
end
local function done(...)
  if doneC(st) ~= 0 then
    error("ljcheck.scope.done(): no scope is open (a done() without its mark())", 2)
  end
end
return mark, done
)lua";

ScopeState& stateOf(lua_State* L) {
  lua_pushlightuserdata(L, &kScopeStateKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* state = static_cast<ScopeState*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  if (state) return *state;
  lua_pushlightuserdata(L, &kScopeThreadKey);
  lua_pushthread(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, &kScopeStateKey);
  state = new (lua_newuserdata(L, sizeof(ScopeState))) ScopeState();
  state->L = L;
  state->tree->recorderVmId = vmIdOf(L);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, [](lua_State* l) {
    static_cast<ScopeState*>(lua_touserdata(l, 1))->~ScopeState();
    return 0;
  });
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  return *state;
}

ScopeState& upvalueState(lua_State* L) { return *static_cast<ScopeState*>(lua_touserdata(L, lua_upvalueindex(1))); }

int internLabel(lua_State* L) {
  lua_pushinteger(L, upvalueState(L).tree->intern(lua::stringAt(L, 1)));
  return 1;
}

// mark and done as C functions, for a VM without the FFI (they stitch).
int markWithoutFfi(lua_State* L) {
  ScopeState& s = upvalueState(L);
  if (lua_type(L, 1) != LUA_TSTRING)
    return luaL_error(L, "ljcheck.scope.mark(label): the label must be a string, got a %s", luaL_typename(L, 1));
  s.tree->mark(s.tree->intern(lua::stringAt(L, 1)), s.readNow());
  return 0;
}

int doneWithoutFfi(lua_State* L) {
  ScopeState& s = upvalueState(L);
  if (!s.tree->done(s.readNow()))
    return luaL_error(L, "ljcheck.scope.done(): no scope is open (a done() without its mark())");
  return 0;
}

// Pushes mark and done.
void pushMarkAndDone(lua_State* L, ScopeState& state) {
  int top = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushstring(L, "ffi");
  bool haveFfi = lua::protectedCall(L, 1, 1).empty() && lua_istable(L, -1);
  if (haveFfi && luaL_loadbuffer(L, kScopeChunk, std::char_traits<char>::length(kScopeChunk),
                                 "=ljcheck.scope") == 0) {
    lua_pushvalue(L, top + 1);
    lua_pushlightuserdata(L, &state);
    lua_pushlightuserdata(L, reinterpret_cast<void*>(&ljcheckScopeMark));
    lua_pushlightuserdata(L, reinterpret_cast<void*>(&ljcheckScopeDone));
    lua_pushlightuserdata(L, &state);
    lua_pushcclosure(L, internLabel, 1);
    if (lua::protectedCall(L, 5, 2).empty() && lua_isfunction(L, -1) && lua_isfunction(L, -2)) {
      lua_remove(L, top + 1);
      return;
    }
  }
  lua_settop(L, top);
  lua_pushlightuserdata(L, &state);
  lua_pushcclosure(L, markWithoutFfi, 1);
  lua_pushlightuserdata(L, &state);
  lua_pushcclosure(L, doneWithoutFfi, 1);
}

// A node as Lua sees it: its index in the tree and the tree's generation
// when it was handed out (the root, index 0, survives reset).
struct NodeHandle {
  ScopeState* state;
  std::size_t index;
  std::uint64_t generation;
};

void pushNode(lua_State* L, ScopeState& state, const ScopeNode& node) {
  new (lua_newuserdata(L, sizeof(NodeHandle))) NodeHandle{&state, node.index, state.tree->generation()};
  luaL_getmetatable(L, kNodeType);
  lua_setmetatable(L, -2);
}

std::string describe(lua_State* L, int idx) {
  return lua_isnone(L, idx) ? std::string("nothing") : std::string("a ") + luaL_typename(L, idx);
}

ScopeNode& nodeAt(lua_State* L, int idx, const char* function) {
  auto* handle = static_cast<NodeHandle*>(lua_touserdata(L, idx));
  bool isNode = false;
  if (handle && lua_getmetatable(L, idx)) {
    luaL_getmetatable(L, kNodeType);
    isNode = lua_rawequal(L, -1, -2) != 0;
    lua_pop(L, 2);
  }
  if (!isNode)
    throw std::runtime_error(std::string(function) +
                             ": expected a scope node (ljcheck.scope.root or a node of its .children), got " +
                             describe(L, idx));
  ScopeTree& tree = *handle->state->tree;
  ScopeNode* node = tree.node(handle->index);
  if (!node || (handle->index != 0 && handle->generation != tree.generation()))
    throw std::runtime_error(std::string(function) +
                             ": this scope node is from before ljcheck.scope.reset(); walk ljcheck.scope.root again");
  return *node;
}

void pushChildren(lua_State* L, ScopeState& state, const ScopeNode& node) {
  lua_createtable(L, 0, static_cast<int>(node.children.size()));
  for (const ScopeNode* child : node.children) {
    std::string_view label = state.tree->labelName(child->label);
    lua_pushlstring(L, label.data(), label.size());
    pushNode(L, state, *child);
    lua_rawset(L, -3);
  }
}

std::string labelOf(ScopeState& state, const ScopeNode& node) {
  return node.parent ? std::string(state.tree->labelName(node.label)) : std::string("root");
}

int nodeIndex(lua_State* L) {
  ScopeNode& node = nodeAt(L, 1, "scope node");
  ScopeState& state = *static_cast<NodeHandle*>(lua_touserdata(L, 1))->state;
  std::string_view key = lua::stringAt(L, 2);
  if (key == "label" || key == "path") {
    std::string text = key == "label" ? labelOf(state, node) : state.tree->path(node);
    lua_pushlstring(L, text.data(), text.size());
  }
  else if (key == "open") lua_pushboolean(L, node.parent ? node.open : state.tree->depth() > 0);
  else if (key == "count") lua_pushnumber(L, static_cast<double>(node.count));
  else if (key == "children") pushChildren(L, state, node);
  else lua_pushnil(L);
  return 1;
}

int nodeToString(lua_State* L) {
  ScopeNode& node = nodeAt(L, 1, "tostring(scope node)");
  ScopeState& state = *static_cast<NodeHandle*>(lua_touserdata(L, 1))->state;
  std::string path = node.parent ? state.tree->path(node) : std::string("root");
  lua_pushfstring(L, "%s(%s)", kNodeType, path.c_str());
  return 1;
}

void setTable(lua_State* L, const char* key, std::initializer_list<std::pair<const char*, double>> fields) {
  lua_createtable(L, 0, static_cast<int>(fields.size()));
  for (const auto& [name, value] : fields) binding::setNumber(L, name, value);
  lua_setfield(L, -2, key);
}

void pushConverted(lua_State* L, ScopeState& state, const ScopeNode& node, double nsPerTick) {
  luaL_checkstack(L, 8, "ljcheck.scope.convert: scope tree too deep");
  ScopeStats s = state.tree->stats(node, nsPerTick);
  lua_createtable(L, 0, 4);
  binding::setString(L, "label", labelOf(state, node));
  binding::setString(L, "path", state.tree->path(node));
  lua_createtable(L, 0, 4);
  binding::setNumber(L, "count", static_cast<double>(s.count));
  setTable(L, "time", {{"avg", s.timeAvgNs},
                       {"p50", static_cast<double>(s.timeP50Ns)},
                       {"p90", static_cast<double>(s.timeP90Ns)},
                       {"max", static_cast<double>(s.timeMaxNs)}});
  setTable(L, "mem_delta", {{"avg", s.memDeltaAvg}, {"sum", static_cast<double>(s.memDeltaSum)}});
  setTable(L, "mem", {{"net", static_cast<double>(s.memNet)}, {"inverse", static_cast<double>(s.memInverse)}});
  lua_setfield(L, -2, "stats");
  lua_createtable(L, 0, static_cast<int>(node.children.size()));
  for (const ScopeNode* child : node.children) {
    std::string_view label = state.tree->labelName(child->label);
    lua_pushlstring(L, label.data(), label.size());
    pushConverted(L, state, *child, nsPerTick);
    lua_rawset(L, -3);
  }
  lua_setfield(L, -2, "children");
}

int convert(lua_State* L) {
  ScopeNode& node = nodeAt(L, 1, "ljcheck.scope.convert(node)");
  ScopeState& state = *static_cast<NodeHandle*>(lua_touserdata(L, 1))->state;
  bool open = node.parent ? node.open : state.tree->depth() > 0;
  if (open)
    throw std::runtime_error("ljcheck.scope.convert(node): scope '" + state.tree->openPath() +
                             "' is still open; convert after its done()");
  pushConverted(L, state, node, state.clock.nsPerTick());
  return 1;
}

int reset(lua_State* L) {
  ScopeState& state = upvalueState(L);
  std::uint64_t seed = ScopeTree::kDefaultSeed;
  if (!lua_isnoneornil(L, 1)) {
    lua_Number n = lua_type(L, 1) == LUA_TNUMBER ? lua_tonumber(L, 1) : -1;
    if (!(n >= 0 && n <= 9007199254740992.0 && n == static_cast<lua_Number>(static_cast<std::uint64_t>(n))))
      throw std::runtime_error("ljcheck.scope.reset(seed): the seed must be a whole number from 0 to 2^53, got " +
                               (lua_type(L, 1) == LUA_TNUMBER ? std::string(lua_tostring(L, 1)) : describe(L, 1)));
    seed = static_cast<std::uint64_t>(n);
  }
  if (state.tree->depth() > 0)
    throw std::runtime_error("ljcheck.scope.reset(): scope '" + state.tree->openPath() +
                             "' is still open; close it with done() first");
  state.tree->reset(seed);
  return 0;
}

void registerNodeMetatable(lua_State* L) {
  if (luaL_newmetatable(L, kNodeType)) {
    lua_pushcfunction(L, binding::guarded<nodeIndex>);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, binding::guarded<nodeToString>);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
}

}  // namespace

void pushScopeTable(lua_State* L) {
  registerNodeMetatable(L);
  ScopeState& state = stateOf(L);
  lua_createtable(L, 0, 5);
  pushMarkAndDone(L, state);
  lua_setfield(L, -3, "done");
  lua_setfield(L, -2, "mark");
  pushNode(L, state, state.tree->root());
  lua_setfield(L, -2, "root");
  lua_pushcfunction(L, binding::guarded<convert>);
  lua_setfield(L, -2, "convert");
  lua_pushlightuserdata(L, &state);
  lua_pushcclosure(L, binding::guarded<reset>, 1);
  lua_setfield(L, -2, "reset");
}

}  // namespace ljcheck
