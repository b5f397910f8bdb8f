-- Lua 5.1.5's test/ programs as Debian's lua5.1 runs them: that Lua is built
-- with LUA_COMPAT_MOD, so math.mod (sieve.lua) exists; LuaJIT has only
-- math.fmod. Then runs the files like drivers/each.lua. Our code.
--
-- usage: ljcheck run ... -- lua51.lua FILE...   (in Lua 5.1.5's test/ folder)
math.mod = math.mod or math.fmod
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
return assert(loadfile(here .. "each.lua"))(...)
