-- Driver: writes an export of orders to a temporary CSV file, reads it back
-- with typed columns and computes a report, as an ETL script would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local csv = require("csv")
local random, format = math.random, string.format

local ROWS = tonumber(arg and arg[1]) or 20000
math.randomseed(31)

local products = { "Widget", "Gadget, large", 'The "Best" Sprocket', "Gear\nassembly", "Bolt" }
local path = os.tmpname()
local f = assert(io.open(path, "wb"))
local w = csv.writer(f, { "id", "date", "customer", "product", "qty", "price", "paid" })
for i = 1, ROWS do
  w:write({
    id = i,
    date = format("2023-%02d-%02d", i % 12 + 1, i % 28 + 1),
    customer = "customer " .. (i * 7919) % 500,
    product = products[i % #products + 1],
    qty = random(1, 9),
    price = csv.format_number(random() * 100),
    paid = i % 7 ~= 0 and "yes" or "no",
  })
end
f:close()

local totals, count, unpaid = {}, 0, 0
for pass = 1, 3 do
  local rows = assert(csv.read(path, {
    types = { id = "integer", qty = "integer", price = "number", paid = "boolean", date = "date" },
  }))
  for i = 1, #rows do
    local r = rows[i]
    local key = r.product .. "|" .. r.date.month
    totals[key] = (totals[key] or 0) + r.qty * r.price
    if not r.paid then unpaid = unpaid + 1 end
  end
  count = count + #rows
end
os.remove(path)

local grand = 0
for _, v in pairs(totals) do grand = grand + v end
local round = csv.parse(csv.format({ { 'a "b"', "c,d" } }), { header = false })
assert(round[1][1] == 'a "b"' and round[1][2] == "c,d")
print(format("csv: %d rows read, %d unpaid, grand total %.2f", count, unpaid, grand))
