-- A text summary of the world after the run.
local M = {}

local concat = table.concat

function M.summary(w)
  local parts = {}
  local total = 0
  for i = 1, w.n do
    total = total + w.age[i]
    parts[#parts + 1] = w.tags[i]:sub(1, 1)
  end
  return string.format("%d particles, mean age %.1f, tags %s", w.n, total / w.n, concat(parts):sub(1, 10))
end

return M
