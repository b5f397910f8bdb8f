-- template.lua: a compiling HTML template engine in the style of
-- lua-resty-template: "{{ expr }}" escapes, "{* expr *}" is raw, "{% code %}"
-- is Lua. Templates compile to Lua functions that are cached by source.
local template = {}

local setmetatable, loadstring, setfenv, tostring, type, pairs, error =
  setmetatable, loadstring, setfenv, tostring, type, pairs, error
local concat = table.concat
local sub, find, gsub, format, byte = string.sub, string.find, string.gsub, string.format, string.byte

local HTML_ENTITIES = {
  ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;", ["/"] = "&#47;",
}

local CODE_ENTITIES = {
  ["{"] = "&#123;", ["}"] = "&#125;", ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
  ['"'] = "&quot;", ["'"] = "&#39;", ["/"] = "&#47;",
}

local function escape(s, c)
  local t = type(s)
  if t == "string" then
    if c then return (gsub(s, "[}{\">/<'&]", CODE_ENTITIES)) end
    return (gsub(s, "[\">/<'&]", HTML_ENTITIES))
  end
  if t == "nil" then return "" end
  return escape(tostring(s), c)
end
template.escape = escape

local function output(s)
  if s == nil then return "" end
  if type(s) == "function" then return output(s()) end
  return tostring(s)
end
template.output = output

local cache = {}
template.cache = cache

-- Splits the view into literal text and tags and emits Lua source.
function template.parse(view)
  local j = 1
  local c = { "local ___,blocks,layout={},blocks or {}\n" }
  local n = 1
  local s = 1
  local len = #view
  while s <= len do
    local i = find(view, "{", s, true)
    if not i then break end
    local t = sub(view, i + 1, i + 1)
    local close
    if t == "{" then close = "}}"
    elseif t == "*" then close = "*}"
    elseif t == "%" then close = "%}"
    elseif t == "#" then close = "#}"
    end
    if close then
      local e = find(view, close, i + 2, true)
      if e then
        if i > j then
          n = n + 1
          c[n] = format("___[#___+1]=%q\n", sub(view, j, i - 1))
        end
        local code = gsub(sub(view, i + 2, e - 1), "^%s+", "")
        code = gsub(code, "%s+$", "")
        n = n + 1
        if t == "{" then
          c[n] = "___[#___+1]=template.escape(" .. code .. ")\n"
        elseif t == "*" then
          c[n] = "___[#___+1]=template.output(" .. code .. ")\n"
        elseif t == "%" then
          c[n] = code .. "\n"
        else
          c[n] = ""  -- comment
        end
        s = e + 2
        j = s
      else
        s = i + 1
      end
    else
      s = i + 1
    end
  end
  if j <= len then
    n = n + 1
    c[n] = format("___[#___+1]=%q\n", sub(view, j))
  end
  n = n + 1
  c[n] = "return table.concat(___)"
  return concat(c)
end

local function load_chunk(code, name)
  local f, err = loadstring(code, "=" .. (name or "template"))
  if not f then error(err, 2) end
  return f
end

-- Returns a render function for the view; compiled once per distinct source.
function template.compile(view, name)
  local cached = cache[view]
  if cached then return cached end
  local chunk = load_chunk(template.parse(view), name)
  local function render(context)
    local env = setmetatable({ template = template, context = context }, {
      __index = function(_, k)
        local v = context[k]
        if v == nil then v = _G[k] end
        return v
      end,
    })
    setfenv(chunk, env)
    return chunk()
  end
  cache[view] = render
  return render
end

function template.render(view, context, name)
  return template.compile(view, name)(context or {})
end

-- A tiny filter library usable from templates: {{ upper(name) }}.
local filters = {}
function filters.upper(s) return (gsub(tostring(s), "%a", string.upper)) end
function filters.money(n) return format("$%.2f", n) end
function filters.truncate(s, len)
  if #s <= len then return s end
  return sub(s, 1, len - 3) .. "..."
end
function filters.slug(s)
  s = gsub(s:lower(), "[^%w]+", "-")
  return (gsub(s, "^%-*(.-)%-*$", "%1"))
end
function filters.initials(s)
  local out = {}
  for word in s:gmatch("%S+") do
    out[#out + 1] = sub(word, 1, 1)
  end
  return concat(out)
end
function filters.checksum(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + byte(s, i)) % 65521 end
  return h
end
template.filters = filters

return template
