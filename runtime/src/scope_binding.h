// The Lua binding of scopes: the table ljcheck.scope (mark, done, root,
// convert, reset) over the VM's ScopeTree.
#pragma once

struct lua_State;

namespace ljcheck {

// Pushes ljcheck.scope for L's VM (one scope tree per VM, kept in the registry).
void pushScopeTable(lua_State* L);

}  // namespace ljcheck
