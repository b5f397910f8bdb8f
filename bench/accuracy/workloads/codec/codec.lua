-- codec.lua: binary codecs over FFI byte buffers, after lua-resty-string and
-- the base64 helpers found in many OpenResty modules: base64 encode/decode,
-- hex, CRC-32, Adler-32 and a run-length packer.
local ffi = require("ffi")
local bit = require("bit")

local band, bor, bxor, lshift, rshift, bnot = bit.band, bit.bor, bit.bxor, bit.lshift, bit.rshift, bit.bnot
local ffi_new, ffi_string, ffi_copy = ffi.new, ffi.string, ffi.copy
local byte, char, format, rep = string.byte, string.char, string.format, string.rep
local concat = table.concat
local error = error

local codec = {}

local uint8_arr = ffi.typeof("uint8_t[?]")

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local enc_table = ffi_new("uint8_t[64]")
local dec_table = ffi_new("int8_t[256]")
for i = 0, 255 do dec_table[i] = -1 end
for i = 0, 63 do
  local c = byte(B64, i + 1)
  enc_table[i] = c
  dec_table[c] = i
end

function codec.base64_encode(s)
  local n = #s
  local out = ffi_new(uint8_arr, math.floor((n + 2) / 3) * 4)
  local src = ffi_new(uint8_arr, n + 3)
  ffi_copy(src, s, n)
  local o = 0
  for i = 0, n - 1, 3 do
    local v = bor(lshift(src[i], 16), lshift(src[i + 1], 8), src[i + 2])
    out[o] = enc_table[band(rshift(v, 18), 63)]
    out[o + 1] = enc_table[band(rshift(v, 12), 63)]
    out[o + 2] = enc_table[band(rshift(v, 6), 63)]
    out[o + 3] = enc_table[band(v, 63)]
    o = o + 4
  end
  local pad = (3 - n % 3) % 3
  for i = 1, pad do out[o - i] = 61 end -- "="
  return ffi_string(out, o)
end

function codec.base64_decode(s)
  local n = #s
  if n % 4 ~= 0 then return nil, "invalid length" end
  local pad = 0
  if byte(s, n) == 61 then pad = pad + 1 end
  if byte(s, n - 1) == 61 then pad = pad + 1 end
  local out = ffi_new(uint8_arr, n / 4 * 3)
  local o = 0
  for i = 1, n, 4 do
    local a, b, c, d = byte(s, i, i + 3)
    local va, vb = dec_table[a], dec_table[b]
    local vc = c == 61 and 0 or dec_table[c]
    local vd = d == 61 and 0 or dec_table[d]
    if va < 0 or vb < 0 or vc < 0 or vd < 0 then
      return nil, format("invalid character near offset %d", i)
    end
    local v = bor(lshift(va, 18), lshift(vb, 12), lshift(vc, 6), vd)
    out[o] = rshift(v, 16)
    out[o + 1] = band(rshift(v, 8), 255)
    out[o + 2] = band(v, 255)
    o = o + 3
  end
  return ffi_string(out, o - pad)
end

local HEX = {}
for i = 0, 255 do HEX[i] = format("%02x", i) end

function codec.to_hex(s)
  local t = {}
  for i = 1, #s do t[i] = HEX[byte(s, i)] end
  return concat(t)
end

function codec.from_hex(h)
  if #h % 2 ~= 0 then error("odd-length hex string") end
  return (h:gsub("%x%x", function(xx) return char(tonumber(xx, 16)) end))
end

local crc_table = ffi_new("uint32_t[256]")
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if band(c, 1) == 1 then
      c = bxor(rshift(c, 1), 0xEDB88320)
    else
      c = rshift(c, 1)
    end
  end
  crc_table[i] = c
end

function codec.crc32(s, crc)
  crc = bnot(crc or 0)
  for i = 1, #s do
    crc = bxor(rshift(crc, 8), crc_table[band(bxor(crc, byte(s, i)), 255)])
  end
  return bnot(crc) % 4294967296
end

function codec.adler32(s)
  local a, b = 1, 0
  for i = 1, #s do
    a = (a + byte(s, i)) % 65521
    b = (b + a) % 65521
  end
  return b * 65536 + a
end

-- Run-length encoding as (count, byte) pairs, counts up to 255.
function codec.rle_pack(s)
  local n = #s
  local out = ffi_new(uint8_arr, n * 2)
  local o, i = 0, 1
  while i <= n do
    local c = byte(s, i)
    local run = 1
    while i + run <= n and run < 255 and byte(s, i + run) == c do run = run + 1 end
    out[o] = run
    out[o + 1] = c
    o = o + 2
    i = i + run
  end
  return ffi_string(out, o)
end

function codec.rle_unpack(s)
  local parts = {}
  for i = 1, #s, 2 do
    local run, c = byte(s, i, i + 1)
    parts[#parts + 1] = rep(char(c), run)
  end
  return concat(parts)
end

return codec
