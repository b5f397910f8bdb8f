-- Driver: builds a batch of API-style records, then encodes and decodes it
-- repeatedly, as a service that proxies JSON would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local json = require("json")
local format = string.format

local ROUNDS = tonumber(arg and arg[1]) or 40

local function make_user(i)
  local tags = {}
  for t = 1, i % 5 do
    tags[t] = "tag" .. t * i
  end
  return {
    id = i,
    name = format("user \"%d\"", i),
    email = "user" .. i .. "@example.org",
    active = i % 3 ~= 0,
    score = i * 1.25,
    balance = -i / 7,
    tags = tags,
    address = { street = i .. " Main St\tApt " .. (i % 40), city = "Springfield", zip = 10000 + i },
    note = (i % 11 == 0) and "line one\nline two" or json.null,
  }
end

local users = {}
for i = 1, 200 do
  users[i] = make_user(i)
end
local doc = { version = 3, page = 1, users = users }

local total = 0
local text
for round = 1, ROUNDS do
  doc.page = round
  text = json.encode(doc)
  local back = json.decode(text)
  assert(#back.users == #users)
  assert(back.users[7].name == users[7].name)
  total = total + #text
end

-- A second shape: many small messages, as in a websocket feed.
local messages = {}
for i = 1, 2000 do
  messages[i] = json.encode({ type = "tick", seq = i, price = 100 + (i % 17) * 0.5, sym = "AB" .. (i % 9) })
end
local sum = 0
for r = 1, 3 do
  for i = 1, #messages do
    local m = json.decode(messages[i])
    sum = sum + m.price
  end
end

assert(json.decode(json.encode({ "\226\130\172", "\\u20ac" }))[1] == "\226\130\172")
print(format("json: %d bytes encoded, checksum %.1f", total, sum))
