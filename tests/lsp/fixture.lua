-- The language server tests' fixture: a closure created in a hot loop
-- (NYIBC:FNEW). The "é" before it makes UTF-16 and byte columns differ.
local handlers = {}
for i = 1, 50000 do
  local label = "é"; handlers[i] = function() return label .. i end
end
return handlers
