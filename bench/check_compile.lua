-- Used by corpus.sh: which files of a list LuaJIT itself cannot compile, and why.
--
-- usage: luajit bench/check_compile.lua LISTFILE
--   LISTFILE holds one path per line. For every file loadstring() rejects, prints
--   one tab-separated line: path, category, LuaJIT's error message. Prints nothing
--   for files that compile. Exit status 0 unless a file cannot be read.
--
-- The category is a guess from the token LuaJIT stopped at and the source line:
-- the message itself is always kept so the guess can be checked.

local list = assert(arg[1], "usage: luajit check_compile.lua LISTFILE")

local function read(path)
  local f, err = io.open(path, "rb")
  if not f then error("cannot read " .. path .. ": " .. tostring(err), 0) end
  local s = f:read("*a")
  f:close()
  return s
end

local function source_line(src, n)
  local i = 1
  for line in (src .. "\n"):gmatch("([^\n]*)\n") do
    if i == n then return line end
    i = i + 1
  end
  return ""
end

local function classify(src, err)
  local lnum = tonumber(err:match(":(%d+): "))
  local near = err:match("near '(.-)'$") or ""
  local line = lnum and source_line(src, lnum) or ""
  if near == "/" then
    return "lua53-integer-division"
  elseif near == "&" or near == "|" or near == "~" then
    return "lua53-bitwise-operator"
  elseif near == "<" or near == ">" then
    if line:find("<%s*const%s*>") or line:find("<%s*close%s*>") then
      return "lua54-variable-attribute"
    elseif line:find("<<", 1, true) or line:find(">>", 1, true) then
      return "lua53-bitwise-shift"
    end
  end
  return "other-syntax-error"
end

for path in io.lines(list) do
  if path ~= "" then
    local src = read(path)
    local fn, err = loadstring(src, "@" .. path)
    if not fn then
      err = tostring(err):gsub("[\t\n]", " ")
      io.write(path, "\t", classify(src, err), "\t", err, "\n")
    end
  end
end
