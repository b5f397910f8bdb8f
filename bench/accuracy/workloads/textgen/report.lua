-- Plain-text and CSV report generation: fixed-width columns, number
-- formatting with thousands separators, CSV quoting, word statistics.
local format, rep, gsub, gmatch, lower, concat = string.format, string.rep, string.gsub,
  string.gmatch, string.lower, table.concat
local M = {}

function M.pad(s, width, right)
  local fill = width - #s
  if fill <= 0 then return s end
  if right then return rep(" ", fill) .. s end
  return s .. rep(" ", fill)
end

function M.thousands(n)
  local s = format("%d", n)
  local out = gsub(s, "^(-?%d+)(%d%d%d)", "%1,%2")
  while true do
    local next, k = gsub(out, "^(-?%d+)(%d%d%d)", "%1,%2")
    out = next
    if k == 0 then break end
  end
  return out
end

function M.csvField(s)
  if s:find('[,"\n]') then
    return '"' .. gsub(s, '"', '""') .. '"'
  end
  return s
end

function M.row(cells, widths)
  local parts = {}
  for i = 1, #cells do
    parts[i] = M.pad(cells[i], widths[i], i > 1)
  end
  return concat(parts, " | ")
end

function M.csvRow(cells)
  local parts = {}
  for i = 1, #cells do parts[i] = M.csvField(cells[i]) end
  return concat(parts, ",")
end

function M.words(text, counts)
  for word in gmatch(text, "%a+") do
    word = lower(word)
    counts[word] = (counts[word] or 0) + 1
  end
  return counts
end

return M
