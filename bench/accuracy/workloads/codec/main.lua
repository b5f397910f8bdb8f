-- Driver: encodes and checks a stream of binary payloads (session tokens,
-- image-like buffers), as an API gateway signing and relaying blobs would.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local codec = require("codec")
local random, char, format, rep = math.random, string.char, string.format, string.rep

local PAYLOADS = tonumber(arg and arg[1]) or 12000
math.randomseed(77)

local function random_bytes(n)
  local t = {}
  for i = 1, n do t[i] = char(random(0, 255)) end
  return table.concat(t)
end

local checksum, total = 0, 0
for i = 1, PAYLOADS do
  local payload = random_bytes(200 + i % 300)
  local enc = codec.base64_encode(payload)
  local dec = assert(codec.base64_decode(enc))
  assert(dec == payload)
  checksum = (checksum + codec.crc32(dec)) % 4294967296
  total = total + #enc
  if i % 100 == 0 then
    assert(codec.from_hex(codec.to_hex(payload)) == payload)
  end
end

local image = rep(rep("\0", 40) .. rep("\255", 24) .. random_bytes(16), 800)
local packed = codec.rle_pack(image)
assert(codec.rle_unpack(packed) == image)
assert(codec.crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339)
assert(codec.base64_encode("hello") == "aGVsbG8=")
print(format("codec: %d bytes encoded, crc sum %08x, adler %08x, rle %d -> %d",
  total, checksum, codec.adler32(image), #image, #packed))
