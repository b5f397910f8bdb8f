-- Lists every bytecode instruction of Lua files, for the accuracy scorer:
--   luajit bench/accuracy/bytecode_index.lua FILE...
-- One line per instruction: path, linedefined of its function, pc, line,
-- opcode and, for calls, a name hint: the global, upvalue or field name the
-- callee was loaded from (`error`, `gmatch` for text:gmatch or a local alias
-- of string.gmatch), empty when it came from elsewhere. The scorer matches a
-- predicted call to the instructions on its line by that hint, so a line
-- holding two calls (`if type(f) ~= "table" then error(...) end`) is not
-- taken as visited when the recorder only saw the other one.
local jutil = require("jit.util")
local vmdef = require("jit.vmdef")
local bit = require("bit")
local band, rshift = bit.band, bit.rshift

local BCM_DST = 1  -- lj_bc.h: the A operand mode of an instruction writing slot A
local CALLS = { CALL = true, CALLM = true, CALLT = true, CALLMT = true, ITERC = true }
local RESULTS = { CALL = true, CALLM = true, VARG = true, ITERC = true, ITERN = true }

local function opname(op)
  return (vmdef.bcnames:sub(op * 6 + 1, op * 6 + 6):gsub(" +$", ""))
end

local function decode(proto, pc)
  local ins, mode = jutil.funcbc(proto, pc)
  if not ins then return nil end
  return opname(band(ins, 0xff)), band(rshift(ins, 8), 0xff), band(rshift(ins, 16), 0xff),
    rshift(ins, 24), rshift(ins, 16), mode
end

local function gcstring(proto, d)
  local k = jutil.funck(proto, -d - 1)
  return type(k) == "string" and k or ""
end

-- The name the value in `slot` was loaded from before `pc`, following one MOV.
local function hint(proto, pc, slot, depth)
  for q = pc - 1, 1, -1 do
    local op, a, c, _, d, mode = decode(proto, q)
    if a == slot and RESULTS[op] then return "" end  -- a call's result
    if a == slot and band(mode, 7) == BCM_DST then
      if op == "GGET" then return gcstring(proto, d) end
      if op == "UGET" then return jutil.funcuvname(proto, d) or "" end
      if op == "TGETS" then return gcstring(proto, c) end
      if op == "MOV" and depth < 1 then return hint(proto, q, d, depth + 1) end
      return ""
    end
  end
  return ""
end

local function list(path, proto, out)
  local info = jutil.funcinfo(proto)
  for pc = 1, info.bytecodes - 1 do
    local op, a = decode(proto, pc)
    local line = jutil.funcinfo(proto, pc).currentline or 0
    local name = ""
    if CALLS[op] then name = hint(proto, pc, op == "ITERC" and a - 3 or a, 0) end
    out[#out + 1] = table.concat({ path, info.linedefined, pc, line, op, name }, "\t")
  end
  for i = 1, info.gcconsts do
    local k = jutil.funck(proto, -i)
    if type(k) == "proto" then list(path, k, out) end
  end
end

local out = {}
for _, path in ipairs(arg) do
  local f = assert(loadfile(path))
  list(path, f, out)
end
io.write(table.concat(out, "\n"), "\n")
