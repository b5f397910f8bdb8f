-- lexer.lua: a tokenizer for Lua source, as used by linters, formatters and
-- syntax highlighters (cf. penlight's pl.lexer). lexer.scan(src) returns an
-- iterator over (type, value, line); lexer.tokens(src) an array of tokens.
local lexer = {}

local find, sub, byte, match, format = string.find, string.sub, string.byte, string.match, string.format
local concat = table.concat
local error, tonumber = error, tonumber

local KEYWORDS = {}
for w in ("and break do else elseif end false for function goto if in local nil not " ..
          "or repeat return then true until while"):gmatch("%S+") do
  KEYWORDS[w] = true
end
lexer.keywords = KEYWORDS

local OPERATORS3 = { ["..."] = true }
local OPERATORS2 = {
  ["=="] = true, ["~="] = true, ["<="] = true, [">="] = true, [".."] = true, ["::"] = true,
}

local function long_bracket_level(src, pos)
  local eqs = match(src, "^%[(=*)%[", pos)
  return eqs and #eqs
end

local function skip_long(src, pos, level, line, what)
  local close = "]" .. ("="):rep(level) .. "]"
  local s, e = find(src, close, pos, true)
  if not s then error(format("unfinished long %s at line %d", what, line)) end
  local body = sub(src, pos, s - 1)
  local _, nl = body:gsub("\n", "\n")
  return body, e + 1, line + nl
end

local function read_string(src, pos, quote, line)
  local buf, n = {}, 0
  local i = pos + 1
  while true do
    local c = byte(src, i)
    if not c or c == 10 then
      error(format("unfinished string at line %d", line))
    elseif c == quote then
      return concat(buf, "", 1, n), i + 1
    elseif c == 92 then -- backslash escape
      local nc = sub(src, i + 1, i + 1)
      local esc = ({ n = "\n", t = "\t", r = "\r", ["\\"] = "\\", ['"'] = '"', ["'"] = "'" })[nc]
      n = n + 1
      buf[n] = esc or nc
      i = i + 2
    else
      n = n + 1
      buf[n] = sub(src, i, i)
      i = i + 1
    end
  end
end

-- Yields tokens through a callback: emit(type, value, line).
function lexer.each(src, emit)
  local pos, len, line = 1, #src, 1
  while pos <= len do
    local c = sub(src, pos, pos)
    if c == "\n" then
      line = line + 1
      pos = pos + 1
    elseif find(c, "^%s") then
      local _, e = find(src, "^[ \t\r]+", pos)
      pos = (e or pos) + 1
    elseif c == "-" and sub(src, pos + 1, pos + 1) == "-" then
      local level = long_bracket_level(src, pos + 2)
      if level then
        local body
        body, pos, line = skip_long(src, pos + 4 + level, level, line, "comment")
        emit("comment", body, line)
      else
        local e = find(src, "\n", pos, true) or len + 1
        emit("comment", sub(src, pos + 2, e - 1), line)
        pos = e
      end
    elseif find(c, "^[%a_]") then
      local s, e = find(src, "^[%w_]+", pos)
      local word = sub(src, s, e)
      emit(KEYWORDS[word] and "keyword" or "name", word, line)
      pos = e + 1
    elseif find(c, "^%d") or (c == "." and find(src, "^%.%d", pos)) then
      local num = match(src, "^0[xX]%x+", pos) or match(src, "^%d*%.?%d*[eE][%+%-]?%d+", pos)
        or match(src, "^%d*%.?%d*", pos)
      local value = tonumber(num)
      if not value then error(format("malformed number near '%s' at line %d", num, line)) end
      emit("number", value, line)
      pos = pos + #num
    elseif c == '"' or c == "'" then
      local s
      s, pos = read_string(src, pos, byte(c), line)
      emit("string", s, line)
    elseif c == "[" and long_bracket_level(src, pos) then
      local level = long_bracket_level(src, pos)
      local body
      body, pos, line = skip_long(src, pos + 2 + level, level, line, "string")
      emit("string", body, line)
    else
      local three, two = sub(src, pos, pos + 2), sub(src, pos, pos + 1)
      if OPERATORS3[three] then
        emit("op", three, line)
        pos = pos + 3
      elseif OPERATORS2[two] then
        emit("op", two, line)
        pos = pos + 2
      else
        emit("op", c, line)
        pos = pos + 1
      end
    end
  end
  emit("eof", nil, line)
end

function lexer.tokens(src)
  local toks = {}
  lexer.each(src, function(t, v, line)
    toks[#toks + 1] = { type = t, value = v, line = line }
  end)
  return toks
end

-- Counts tokens per type: a cheap way to fingerprint a file.
function lexer.histogram(src)
  local counts = {}
  lexer.each(src, function(t)
    counts[t] = (counts[t] or 0) + 1
  end)
  return counts
end

-- Re-emits the source with single spaces between tokens (comments dropped).
function lexer.minify(src)
  local out, n = {}, 0
  local last_line = 1
  for _, tok in ipairs(lexer.tokens(src)) do
    if tok.type ~= "comment" and tok.type ~= "eof" then
      n = n + 1
      if tok.type == "string" then
        out[n] = format("%q", tok.value)
      else
        out[n] = tostring(tok.value)
      end
      if tok.line ~= last_line then
        last_line = tok.line
      end
    end
  end
  return concat(out, " ")
end

return lexer
