-- Runs busted, Debian's lua-busted test runner (fetched by run.sh into
-- bench/thirdparty/src/.busted, with the modules it needs), on the command
-- line's arguments, as Debian's /usr/bin/busted does: for the test suites
-- written as busted specs.
--
-- usage: ljcheck run ... -- busted.lua [BUSTED OPTIONS] SPEC...
--
-- A spec that requires LuaCov (coverage, which installs a debug hook and
-- would change what the JIT compiles) gets an empty module instead.
--
-- Our code, not the benchmarked program's: run.sh lints only the program's
-- files, and score.py leaves the sites observed here and in busted out of
-- its tables (they lie outside the program's folder).

package.preload.luacov = function() return {} end
require("busted.runner")({ standalone = false })
