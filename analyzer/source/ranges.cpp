// The range of a predicted construct: the syntax index's entries on the
// VM's line, picked the way LuaJIT attributes lines (syntax_index.h); a
// scan of the line where the index shows nothing.
#include <algorithm>

#include "ljcheck/source_map.h"
#include "source/syntax_index.h"

namespace ljcheck {
namespace {

using Index = SyntaxIndex;

// The entries of a vector sorted by `key` whose key is `line`.
template <class T, class Key>
std::pair<const T*, const T*> onLine(const std::vector<T>& items, int line, Key key) {
  auto lo = std::partition_point(items.begin(), items.end(), [&](const T& t) { return key(t) < line; });
  auto hi = std::partition_point(lo, items.end(), [&](const T& t) { return key(t) <= line; });
  return {items.data() + (lo - items.begin()), items.data() + (hi - items.begin())};
}

// Functions (by index) whose `key` line is `line`, in source order.
std::vector<int> functionsOn(const Index& index, const std::vector<int>& ids, int line,
                             int Index::Function::*key) {
  std::vector<int> out;
  auto lo = std::partition_point(ids.begin(), ids.end(), [&](int id) {
    return index.functions[static_cast<std::size_t>(id)].*key < line;
  });
  for (auto it = lo; it != ids.end() && index.functions[static_cast<std::size_t>(*it)].*key == line; ++it)
    out.push_back(*it);
  return out;
}

bool before(SourcePosition a, SourcePosition b) { return a.line != b.line ? a.line < b.line : a.column < b.column; }

// FNEW is on the line of the closure's `end`; a function's header (pc 0:
// CUNROLL, CJITOFF) on the line of its `function`.
SourceRange closure(const Index& index, int line) {
  for (auto key : {&Index::Function::lastLine, &Index::Function::firstLine}) {
    const auto& ids = key == &Index::Function::lastLine ? index.functionsByLastLine : index.functionsByFirstLine;
    std::vector<int> found = functionsOn(index, ids, line, key);
    if (!found.empty()) return index.functions[static_cast<std::size_t>(found.front())].keyword;
  }
  return {};
}

// How well a call's spelling fits the resolved callee: 3 as written
// (string.gsub), 2 by its last name (s:gsub), 1 by a name that ends in it
// (local str_gsub = string.gsub), 0 not at all.
int fit(const Index::Call& call, std::string_view callee) {
  std::size_t dot = callee.find_last_of(".:");
  std::string_view last = dot == std::string_view::npos ? callee : callee.substr(dot + 1);
  std::string_view name = call.name;
  if (last.empty() || name.empty()) return 0;
  if (call.spelling == callee) return 3;
  if (name == last) return 2;
  return name.size() > last.size() && name.substr(name.size() - last.size()) == last ? 1 : 0;
}

// A call of the function that holds the site, as far as the site tells.
bool inFunction(const Index& index, const Index::Call& c, const ConstructSite& site) {
  return site.functionLine < 0 || index.functions[static_cast<std::size_t>(c.function)].firstLine == site.functionLine;
}

struct CallsOnLine {
  const Index::Call *first, *last;
  std::vector<const Index::Call*> nth;  // the occurrence-th call of each function that may hold the site
};

CallsOnLine callsOn(const Index& index, const ConstructSite& site) {
  auto [first, last] = onLine(index.calls, site.line, [](const Index::Call& c) { return c.line; });
  CallsOnLine calls{first, last, {}};
  for (const auto* c = first; c != last; ++c)
    if (site.occurrence > 0 && c->order == site.occurrence && inFunction(index, *c, site)) calls.nth.push_back(c);
  return calls;
}

// The call whose spelling fits the callee: the occurrence-th call of its
// function on the line (counted in evaluation order, as the bytecode counts
// its call instructions), else the best fit, in a loop body or not as the
// site is, the first in the source among equals. A call that does not fit
// at the occurrence says the count went wrong.
SourceRange namedCall(const Index& index, const ConstructSite& site) {
  CallsOnLine calls = callsOn(index, site);
  for (const auto* c : calls.nth)
    if (fit(*c, site.callee) > 0) return c->callee;
  const Index::Call* best = nullptr;
  auto rank = [&](const Index::Call& c) {
    return fit(c, site.callee) * 4 + (inFunction(index, c, site) ? 2 : 0) + (c.inLoop == site.inLoop ? 1 : 0);
  };
  for (const auto* c = calls.first; c != calls.last; ++c) {
    int r = rank(*c), b = best ? rank(*best) : -1;
    if (fit(*c, site.callee) > 0 && (r > b || (r == b && before(c->callee.start, best->callee.start)))) best = c;
  }
  return best ? best->callee : SourceRange{};
}

// Where no call spells the callee (an alias: local g = string.gsub; a
// generic for's iterator, its ITERC on the `for` line): the occurrence-th
// call, else the first in a loop body or not as the site is.
SourceRange anyCall(const Index& index, const ConstructSite& site) {
  CallsOnLine calls = callsOn(index, site);
  if (calls.nth.size() == 1) return calls.nth.front()->callee;
  const Index::Call* best = nullptr;
  for (const auto* c = calls.first; c != calls.last; ++c)
    if (!best || (c->inLoop == site.inLoop && best->inLoop != site.inLoop)) best = c;
  return best ? best->callee : SourceRange{};
}

// LINNER is reported at the loop's instruction (a for) or at the first
// instruction of its body (while, repeat): the innermost loop that starts
// on the line, or whose body does, or that holds it.
SourceRange loop(const Index& index, int line) {
  const Index::Loop *starts = nullptr, *body = nullptr, *holds = nullptr;
  for (const auto& l : index.loops) {
    if (l.firstLine == line) starts = &l;
    if (l.bodyLine == line) body = &l;
    if (l.firstLine <= line && line <= l.lastLine) holds = &l;
  }
  const Index::Loop* best = starts ? starts : body ? body : holds;
  return best ? best->keyword : SourceRange{};
}

// A return's RET, or its tail call's CALLT, is on the line of the return's
// last token; an implicit return on the function's `end`.
SourceRange returnAt(const Index& index, int line) {
  const Index::Exit* found = nullptr;
  for (const auto& e : index.exits) {
    if (!e.isReturn || e.firstLine > line || e.lastLine < line) continue;
    if (!found || before(e.keyword.start, found->keyword.start)) found = &e;
  }
  if (found) return found->keyword;
  std::vector<int> ends = functionsOn(index, index.functionsByLastLine, line, &Index::Function::lastLine);
  return ends.empty() ? SourceRange{} : index.functions[static_cast<std::size_t>(ends.front())].end;
}

// UCLO closes the captured locals of a block: at a break, goto or return
// that leaves it, at its end (on the line of its last token; the range is
// its `end`), or at the implicit return of a function that made closures.
SourceRange upvalueClose(const Index& index, int line) {
  auto [first, last] = onLine(index.exits, line, [](const Index::Exit& e) { return e.lastLine; });
  for (const auto* e = first; e != last; ++e)
    if (e->closes) return e->keyword;
  const Index::BlockEnd* found = nullptr;
  auto [from, to] = onLine(index.blockEnds, line, [](const Index::BlockEnd& b) { return b.line; });
  for (const auto* b = from; b != to; ++b) {
    if (!b->holdsClosure) continue;
    // A loop body first, then the innermost block: the one that ends first.
    bool better = !found || (b->loopBody && !found->loopBody) ||
                  (b->loopBody == found->loopBody && before(b->keyword.start, found->keyword.start));
    if (better) found = b;
  }
  if (found) return found->keyword;
  for (int id : functionsOn(index, index.functionsByLastLine, line, &Index::Function::lastLine)) {
    const auto& fn = index.functions[static_cast<std::size_t>(id)];
    if (fn.firstClosure.line > 0) return fn.end;
  }
  return {};
}

SourceRange vararg(const Index& index, int line) {
  auto [first, last] = onLine(index.varargs, line, [](const Index::Token& t) { return t.line; });
  return first != last ? first->range : SourceRange{};
}

}  // namespace

SourceRange SourceMap::locate(const ConstructSite& site) const {
  const Index& index = *syntax_;
  SourceRange found;
  if (site.construct == "closure") found = closure(index, site.line);
  else if (site.construct == "call") found = namedCall(index, site);
  else if (site.construct == "loop") found = loop(index, site.line);
  else if (site.construct == "return") found = returnAt(index, site.line);
  else if (site.construct == "upvalue close") found = upvalueClose(index, site.line);
  else if (site.construct == "vararg") found = vararg(index, site.line);
  if (!found.found()) found = scanLine(site);  // pcall(require, name): the callee is an argument
  if (!found.found() && site.construct == "call") found = anyCall(index, site);
  return found;
}

}  // namespace ljcheck
