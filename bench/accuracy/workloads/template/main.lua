-- Driver: renders a product listing page for many requests, with a layout,
-- a loop over rows and filters, as a web handler would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local template = require("template")
local f = template.filters
local format, concat = string.format, table.concat

local REQUESTS = tonumber(arg and arg[1]) or 700

local page = [[
<!DOCTYPE html>
<html><head><title>{{ title }}</title></head>
<body>
{# the product table #}
<h1>{{ f.upper(title) }}</h1>
<table class="products">
{% for i, p in ipairs(products) do %}
  <tr class="{{ i % 2 == 0 and 'even' or 'odd' }}" id="p-{{ f.slug(p.name) }}">
    <td>{{ i }}</td><td>{{ f.truncate(p.name, 24) }}</td>
    <td>{* f.money(p.price) *}</td>
    <td>{% if p.stock > 0 then %}{{ p.stock }} left{% else %}<em>sold out</em>{% end %}</td>
  </tr>
{% end %}
</table>
<p>{{ footer }} &mdash; {{ f.initials(user) }}</p>
</body></html>
]]

local function make_products(n, seed)
  local products = {}
  for i = 1, n do
    products[i] = {
      name = format("Widget <%d> & \"Gadget\" model %d", i, (i * seed) % 97),
      price = (i * 37 % 1000) / 7,
      stock = (i + seed) % 5,
    }
  end
  return products
end

local total, check = 0, 0
for r = 1, REQUESTS do
  local html = template.render(page, {
    title = "Catalogue page " .. r,
    products = make_products(40, r),
    footer = "Generated for request #" .. r,
    user = "Ada King Lovelace",
    f = f,
  }, "products.html")
  total = total + #html
  check = (check + f.checksum(html)) % 65521
end

-- Small inline templates rendered per item, as e-mail snippets are.
local snippets = {}
for i = 1, 2000 do
  snippets[i] = template.render("Hello {{ name }}, you owe {* f.money(amount) *}.",
    { name = "user" .. i, amount = i / 3, f = f })
end

assert(#snippets[10] > 0 and snippets[3]:find("$1.00", 1, true))
print(format("template: %d bytes rendered, checksum %d, %s", total, check, concat({ #snippets, "snippets" }, " ")))
