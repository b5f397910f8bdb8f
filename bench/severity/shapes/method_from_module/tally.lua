local Tally = {}
Tally.__index = Tally
local M = {}
function M.new() return setmetatable({ sum = 0 }, Tally) end
function Tally:add(x)
  local twice = function(v) return v * 2 end -- site
  self.sum = self.sum + twice(x)
end
return M
