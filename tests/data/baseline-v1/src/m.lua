local M = {}
function M.makers(n)
  local t = {}
  for i = 1, n do
    t[i] = function() return i end
  end
  return t
end
return M
