-- Workload: string building and scanning (buffers, string.byte/sub, concat), calls across functions.
-- scale multiplies the run time (1: about 0.45 s).
return function(scale)
  local byte, sub, concat = string.byte, string.sub, table.concat
  local function checksum(s)
    local h = 0
    for i = 1, #s do h = (h * 31 + byte(s, i)) % 1000003 end
    return h
  end
  local total = 0
  for round = 1, 40000 * (scale or 1) do
    local parts = {}
    for i = 1, 100 do parts[i] = sub("abcdefghijklmnopqrstuvwxyz", i % 26 + 1, i % 26 + 3) end
    total = (total + checksum(concat(parts, ",")) + round) % 1000003
  end
  return total
end
