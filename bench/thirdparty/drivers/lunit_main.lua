-- The lua-uri test suite's own runner, as a script: its Makefile runs
--   echo 'lunit.main({...})' | lua -llunit - test/*.lua
-- and `ljcheck run` takes a script, not standard input. lunit.lua is the one
-- lua-uri ships. Test failures are printed by lunit and do not change the
-- exit status (two urn-isbn tests fail on LuaJIT as on Lua 5.1).
--
-- usage: ljcheck run ... -- lunit_main.lua test/*.lua   (in the lua-uri folder)
require "lunit"
lunit.main({ ... })
