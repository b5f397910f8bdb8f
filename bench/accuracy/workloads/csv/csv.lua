-- csv.lua: an RFC 4180 CSV reader and writer with typed columns: quoted
-- fields with embedded separators, doubled quotes and newlines, a header
-- row, per-column converters, and streaming over a file handle.
local csv = {}

local find, sub, gsub, byte, format, match = string.find, string.sub, string.gsub, string.byte,
  string.format, string.match
local concat = table.concat
local tonumber, tostring, type, error, setmetatable, io_open = tonumber, tostring, type, error,
  setmetatable, io.open

local QUOTE = byte('"')

-- Splits one record starting at pos; returns the fields and the position
-- after the record's line end. Quoted fields may span lines.
local function parse_record(s, pos, sep)
  local fields, n = {}, 0
  local len = #s
  while true do
    n = n + 1
    if byte(s, pos) == QUOTE then
      local buf, b = {}, 0
      local i = pos + 1
      while true do
        local q = find(s, '"', i, true)
        if not q then error("unterminated quoted field at byte " .. pos) end
        b = b + 1
        buf[b] = sub(s, i, q - 1)
        if byte(s, q + 1) == QUOTE then
          b = b + 1
          buf[b] = '"'
          i = q + 2
        else
          pos = q + 1
          break
        end
      end
      fields[n] = concat(buf)
    else
      local e = find(s, "[" .. sep .. "\r\n]", pos)
      if not e then e = len + 1 end
      fields[n] = sub(s, pos, e - 1)
      pos = e
    end
    local c = sub(s, pos, pos)
    if c == sep then
      pos = pos + 1
    elseif c == "\r" then
      return fields, pos + 2
    elseif c == "\n" then
      return fields, pos + 1
    else
      return fields, pos
    end
  end
end

local converters = {
  number = function(v) return tonumber(v) end,
  integer = function(v)
    local n = tonumber(v)
    if n and n % 1 ~= 0 then error("not an integer: " .. v) end
    return n
  end,
  boolean = function(v)
    v = v:lower()
    return v == "true" or v == "yes" or v == "1"
  end,
  string = function(v) return v end,
  date = function(v)
    local y, m, d = match(v, "^(%d%d%d%d)%-(%d%d)%-(%d%d)$")
    if not y then return nil end
    return { year = tonumber(y), month = tonumber(m), day = tonumber(d) }
  end,
}
csv.converters = converters

-- Parses a whole document; opts.header (default true), opts.sep (","),
-- opts.types = { column = "number" | "integer" | "boolean" | "date" | function }.
function csv.parse(s, opts)
  opts = opts or {}
  local sep = opts.sep or ","
  local types = opts.types or {}
  local pos, len = 1, #s
  local header
  if opts.header ~= false then
    header, pos = parse_record(s, pos, sep)
  end
  local convert = {}
  if header then
    for i, name in ipairs(header) do
      local t = types[name]
      convert[i] = type(t) == "function" and t or converters[t or "string"]
    end
  end
  local rows, n = {}, 0
  while pos <= len do
    local fields
    fields, pos = parse_record(s, pos, sep)
    n = n + 1
    if header then
      local row = {}
      for i = 1, #header do
        local v = fields[i]
        if v ~= nil and v ~= "" then row[header[i]] = convert[i](v) end
      end
      rows[n] = row
    else
      rows[n] = fields
    end
  end
  return rows, header
end

-- Reads a file in one go and parses it.
function csv.read(path, opts)
  local f, err = io_open(path, "rb")
  if not f then return nil, err end
  local s = f:read("*a")
  f:close()
  return csv.parse(s, opts)
end

local function quote(v)
  v = tostring(v)
  if find(v, '[,"\r\n]') then
    return '"' .. gsub(v, '"', '""') .. '"'
  end
  return v
end
csv.quote = quote

-- Writes rows (arrays or keyed tables with a header) to a string.
function csv.format(rows, header)
  local out = {}
  if header then
    local h = {}
    for i = 1, #header do h[i] = quote(header[i]) end
    out[1] = concat(h, ",")
  end
  for r = 1, #rows do
    local row, cells = rows[r], {}
    for i = 1, header and #header or #row do
      local v = header and row[header[i]] or row[i]
      cells[i] = v == nil and "" or quote(v)
    end
    out[#out + 1] = concat(cells, ",")
  end
  return concat(out, "\r\n") .. "\r\n"
end

local Writer = {}
Writer.__index = Writer
function csv.writer(file, header)
  local w = setmetatable({ file = file, header = header }, Writer)
  file:write(csv.format({}, header))
  return w
end
function Writer:write(row)
  local cells = {}
  for i, name in ipairs(self.header) do
    local v = row[name]
    cells[i] = v == nil and "" or quote(v)
  end
  self.file:write(concat(cells, ","), "\r\n")
end

csv.format_number = function(n) return format("%.2f", n) end
return csv
