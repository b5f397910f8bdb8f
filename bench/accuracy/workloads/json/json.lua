-- json.lua: a small JSON encoder/decoder (in the spirit of rxi/json.lua).
--
--   local json = require("json")
--   local s = json.encode({ 1, 2, 3, { x = 10 } })
--   local t = json.decode('[1,2,3,{"x":10}]')
local json = { _VERSION = "0.4.1" }

local byte, char, sub, find, format, gsub = string.byte, string.char, string.sub,
  string.find, string.format, string.gsub
local concat, sort = table.concat, table.sort
local floor, huge = math.floor, math.huge
local type, pairs, ipairs, next, tostring, tonumber, select, error, rawget, setmetatable =
  type, pairs, ipairs, next, tostring, tonumber, select, error, rawget, setmetatable

json.null = setmetatable({}, { __tostring = function() return "null" end })

-------------------------------------------------------------------------------
-- Encode
-------------------------------------------------------------------------------

local escape_char_map = {
  ["\\"] = "\\\\", ["\""] = "\\\"", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}

local escape_char_map_inv = { ["/"] = "/" }
for k, v in pairs(escape_char_map) do
  escape_char_map_inv[sub(v, 2)] = k
end

local function escape_char(c)
  return escape_char_map[c] or format("\\u%04x", byte(c))
end

local function encode_string(s)
  return '"' .. gsub(s, '[%c"\\]', escape_char) .. '"'
end

local function encode_number(n)
  if n ~= n or n == huge or n == -huge then
    error("unexpected number value '" .. tostring(n) .. "'")
  end
  if floor(n) == n and n > -1e15 and n < 1e15 then
    return format("%d", n)
  end
  return format("%.14g", n)
end

local encode

local function encode_table(val, stack, buf)
  if stack[val] then error("circular reference") end
  stack[val] = true
  if rawget(val, 1) ~= nil or next(val) == nil then
    -- Treat as an array: check that the keys are 1..n
    local n = 0
    for k in pairs(val) do
      if type(k) ~= "number" then error("invalid table: mixed or invalid key types") end
      n = n + 1
    end
    if n ~= #val then error("invalid table: sparse array") end
    buf[#buf + 1] = "["
    for i, v in ipairs(val) do
      if i > 1 then buf[#buf + 1] = "," end
      encode(v, stack, buf)
    end
    buf[#buf + 1] = "]"
  else
    -- Treat as an object, keys in a stable order
    local keys = {}
    for k in pairs(val) do
      if type(k) ~= "string" then error("invalid table: mixed or invalid key types") end
      keys[#keys + 1] = k
    end
    sort(keys)
    buf[#buf + 1] = "{"
    for i, k in ipairs(keys) do
      if i > 1 then buf[#buf + 1] = "," end
      buf[#buf + 1] = encode_string(k)
      buf[#buf + 1] = ":"
      encode(val[k], stack, buf)
    end
    buf[#buf + 1] = "}"
  end
  stack[val] = nil
end

encode = function(val, stack, buf)
  local t = type(val)
  if t == "string" then
    buf[#buf + 1] = encode_string(val)
  elseif t == "number" then
    buf[#buf + 1] = encode_number(val)
  elseif t == "boolean" then
    buf[#buf + 1] = val and "true" or "false"
  elseif t == "nil" or val == json.null then
    buf[#buf + 1] = "null"
  elseif t == "table" then
    encode_table(val, stack, buf)
  else
    error("unexpected type '" .. t .. "'")
  end
end

function json.encode(val)
  local buf = {}
  encode(val, {}, buf)
  return concat(buf)
end

-------------------------------------------------------------------------------
-- Decode
-------------------------------------------------------------------------------

local function create_set(...)
  local res = {}
  for i = 1, select("#", ...) do
    res[select(i, ...)] = true
  end
  return res
end

local space_chars  = create_set(" ", "\t", "\r", "\n")
local delim_chars  = create_set(" ", "\t", "\r", "\n", "]", "}", ",")
local escape_chars = create_set("\\", "/", '"', "b", "f", "n", "r", "t", "u")
local literal_map  = { ["true"] = true, ["false"] = false, ["null"] = json.null }

local function next_char(str, idx, set, negate)
  for i = idx, #str do
    if set[sub(str, i, i)] ~= negate then
      return i
    end
  end
  return #str + 1
end

local function decode_error(str, idx, msg)
  local line_count, col_count = 1, 1
  for i = 1, idx - 1 do
    col_count = col_count + 1
    if sub(str, i, i) == "\n" then
      line_count = line_count + 1
      col_count = 1
    end
  end
  error(format("%s at line %d col %d", msg, line_count, col_count))
end

local function codepoint_to_utf8(n)
  if n <= 0x7f then
    return char(n)
  elseif n <= 0x7ff then
    return char(floor(n / 64) + 192, n % 64 + 128)
  elseif n <= 0xffff then
    return char(floor(n / 4096) + 224, floor(n % 4096 / 64) + 128, n % 64 + 128)
  end
  error(format("invalid unicode codepoint '%x'", n))
end

local parse

local function parse_string(str, i)
  local res = {}
  local j = i + 1
  local k = j
  local n = #str
  while j <= n do
    local x = byte(str, j)
    if x < 32 then
      decode_error(str, j, "control character in string")
    elseif x == 92 then -- "\": an escape sequence
      res[#res + 1] = sub(str, k, j - 1)
      j = j + 1
      local c = sub(str, j, j)
      if c == "u" then
        local hex = sub(str, j + 1, j + 4)
        if not find(hex, "^%x%x%x%x$") then
          decode_error(str, j - 1, "invalid unicode escape in string")
        end
        res[#res + 1] = codepoint_to_utf8(tonumber(hex, 16))
        j = j + 4
      else
        if not escape_chars[c] then
          decode_error(str, j - 1, "invalid escape char '" .. c .. "' in string")
        end
        res[#res + 1] = escape_char_map_inv[c]
      end
      k = j + 1
    elseif x == 34 then -- '"': end of string
      res[#res + 1] = sub(str, k, j - 1)
      return concat(res), j + 1
    end
    j = j + 1
  end
  decode_error(str, i, "expected closing quote for string")
end

local function parse_number(str, i)
  local x = next_char(str, i, delim_chars)
  local s = sub(str, i, x - 1)
  local n = tonumber(s)
  if not n then
    decode_error(str, i, "invalid number '" .. s .. "'")
  end
  return n, x
end

local function parse_literal(str, i)
  local x = next_char(str, i, delim_chars)
  local word = sub(str, i, x - 1)
  local v = literal_map[word]
  if v == nil then
    decode_error(str, i, "invalid literal '" .. word .. "'")
  end
  return v, x
end

local function parse_array(str, i)
  local res = {}
  local n = 1
  i = i + 1
  while true do
    local x
    i = next_char(str, i, space_chars, true)
    if sub(str, i, i) == "]" then
      i = i + 1
      break
    end
    x, i = parse(str, i)
    res[n] = x
    n = n + 1
    i = next_char(str, i, space_chars, true)
    local chr = sub(str, i, i)
    i = i + 1
    if chr == "]" then break end
    if chr ~= "," then decode_error(str, i, "expected ']' or ','") end
  end
  return res, i
end

local function parse_object(str, i)
  local res = {}
  i = i + 1
  while true do
    local key, val
    i = next_char(str, i, space_chars, true)
    if sub(str, i, i) == "}" then
      i = i + 1
      break
    end
    if sub(str, i, i) ~= '"' then
      decode_error(str, i, "expected string for key")
    end
    key, i = parse(str, i)
    i = next_char(str, i, space_chars, true)
    if sub(str, i, i) ~= ":" then
      decode_error(str, i, "expected ':' after key")
    end
    i = next_char(str, i + 1, space_chars, true)
    val, i = parse(str, i)
    res[key] = val
    i = next_char(str, i, space_chars, true)
    local chr = sub(str, i, i)
    i = i + 1
    if chr == "}" then break end
    if chr ~= "," then decode_error(str, i, "expected '}' or ','") end
  end
  return res, i
end

local char_func_map = {
  ['"'] = parse_string, ["0"] = parse_number, ["1"] = parse_number,
  ["2"] = parse_number, ["3"] = parse_number, ["4"] = parse_number,
  ["5"] = parse_number, ["6"] = parse_number, ["7"] = parse_number,
  ["8"] = parse_number, ["9"] = parse_number, ["-"] = parse_number,
  ["t"] = parse_literal, ["f"] = parse_literal, ["n"] = parse_literal,
  ["["] = parse_array, ["{"] = parse_object,
}

parse = function(str, idx)
  local chr = sub(str, idx, idx)
  local f = char_func_map[chr]
  if f then
    return f(str, idx)
  end
  decode_error(str, idx, "unexpected character '" .. chr .. "'")
end

function json.decode(str)
  if type(str) ~= "string" then
    error("expected argument of type string, got " .. type(str))
  end
  local res, idx = parse(str, next_char(str, 1, space_chars, true))
  idx = next_char(str, idx, space_chars, true)
  if idx <= #str then
    decode_error(str, idx, "trailing garbage")
  end
  return res
end

return json
