-- Driver: renders a sales report of generated records as a text table and
-- as CSV, and counts the words of the product descriptions.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local report = require("report")
local format = string.format

local NAMES = { "Widget", "Gadget, large", 'The "Thing"', "Sprocket", "Doohickey" }
local WORDS = { "red", "blue", "steel", "plastic", "small", "large", "shiny" }

local records = {}
for i = 1, 20000 do
  records[i] = {
    id = i,
    name = NAMES[i % #NAMES + 1],
    units = (i * 7919) % 5000,
    cents = (i * 104729) % 10000000,
    text = WORDS[i % 7 + 1] .. " " .. WORDS[(i * 3) % 7 + 1] .. " and " .. WORDS[(i * 5) % 7 + 1],
  }
end

local widths = { 6, 16, 8, 14 }
local lines, csv, counts = {}, {}, {}
local total = 0
for i = 1, #records do
  local r = records[i]
  local cells = { format("%d", r.id), r.name, report.thousands(r.units),
                  format("%s.%02d", report.thousands(math.floor(r.cents / 100)), r.cents % 100) }
  lines[i] = report.row(cells, widths)
  csv[i] = report.csvRow(cells)
  report.words(r.text, counts)
  total = total + r.units
end

assert(#lines == 20000 and #csv == 20000)
assert(lines[1]:find("Gadget, large", 1, true))
assert(csv[1]:find('"Gadget, large"', 1, true))
assert(csv[2]:find('"The ""Thing"""', 1, true))
assert(report.thousands(1234567) == "1,234,567")
assert(counts["and"] == 20000)
print(("textgen: %d rows, %s units, %d distinct words"):format(#lines, report.thousands(total), #WORDS + 1))
