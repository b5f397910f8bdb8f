-- Re-lint latency of `ljcheck lsp` as a Neovim user sees it: Debian's
-- Neovim 0.7, headless, its built-in LSP client attached to the file
-- edit_latency.mjs generates, the same one-line edits made in the buffer
-- (Neovim sends them as incremental didChange, with no debounce), each timed
-- from the edit to the publishDiagnostics of its version reaching the
-- client's handler (decoded by Neovim), and to that handler's return
-- (Neovim has then converted and stored the diagnostics). Then the replay:
-- the same client, buffer and first 200 edits against replay_server.mjs,
-- which answers each change at once with the last publish.
-- Run through bench/lsp/neovim_latency.sh, which sets:
--   LJCHECK_EXE  the server; BENCH_FILE  the generated file, alone in its
--   folder (the workspace root Neovim names); BENCH_EDITS  how many edits;
--   BENCH_OUT  where the JSON result goes; REPLAY_SERVER  replay_server.mjs.
local exe = assert(os.getenv('LJCHECK_EXE'), 'LJCHECK_EXE is not set')
local file = assert(os.getenv('BENCH_FILE'), 'BENCH_FILE is not set')
local edits = tonumber(os.getenv('BENCH_EDITS') or '1000')
local out = assert(os.getenv('BENCH_OUT'), 'BENCH_OUT is not set')
local replay = assert(os.getenv('REPLAY_SERVER'), 'REPLAY_SERVER is not set')

local function fail(message)
  io.stderr:write('neovim_latency: ' .. message .. '\n')
  vim.cmd('cquit 1')
end

local received, handled = {}, {}  -- by version: vim.loop.hrtime() when the publish arrived, and when it was stored
local lastResult  -- the last publish, for the replay
local default = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  local at = vim.loop.hrtime()
  default(err, result, ctx, config)
  if result and result.version then
    received[result.version] = at
    handled[result.version] = vim.loop.hrtime()
    lastResult = result
  end
end

local function quantile(values, p)
  local sorted = { unpack(values) }
  table.sort(sorted)
  return sorted[math.min(#sorted, math.floor(p * #sorted) + 1)]
end

local function summary(values)
  local round = function(x) return math.floor(x * 100 + 0.5) / 100 end
  return { p50Ms = round(quantile(values, 0.5)), p95Ms = round(quantile(values, 0.95)), maxMs = round(quantile(values, 1)) }
end

local function slice(values, from, to)
  local part = {}
  for i = math.max(1, from), math.min(#values, to) do part[#part + 1] = values[i] end
  return part
end

-- Starts the server `cmd` on the buffer of `file`, makes edits versions
-- 2 .. edits + 1, and returns the latencies (ms) to each publish's arrival
-- and to its handler's return, and the number of diagnostics at the open.
local function timeEdits(cmd, count)
  received, handled = {}, {}
  local client_id = vim.lsp.start_client({
    name = 'ljcheck',
    cmd = cmd,
    root_dir = vim.fn.fnamemodify(file, ':h'),
    flags = { debounce_text_changes = 0 },  -- 0.7 waits 150 ms by default before it sends a change
  })
  if not client_id then error('the client did not start ' .. cmd[1]) end
  vim.cmd('edit! ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.lsp.buf_attach_client(buf, client_id) then error('buf_attach_client failed') end
  -- The open (Neovim sends it once the server is initialized).
  if not vim.wait(30000, function() return next(received) ~= nil end, 1) then
    error('no diagnostics for the opened file from ' .. cmd[1])
  end
  received, handled = {}, {}
  local opened = #vim.diagnostic.get(buf)
  local lineCount = vim.api.nvim_buf_line_count(buf) - 1  -- the file ends with a newline
  local toReceive, toHandle = {}, {}
  for v = 2, count + 1 do
    -- edit_latency.mjs's editAt(v): one `local s = 0` line, its digit
    local line = 2 + 7 * ((v * 37) % math.floor(lineCount / 7 - 1))
    local start = vim.loop.hrtime()
    vim.api.nvim_buf_set_text(buf, line, 12, line, 13, { tostring(v % 10) })
    local version = vim.lsp.util.buf_versions[buf]
    if not vim.wait(10000, function() return received[version] ~= nil end, 1) then
      error('no publish for version ' .. version .. ' from ' .. cmd[1])
    end
    toReceive[#toReceive + 1] = (received[version] - start) / 1e6
    toHandle[#toHandle + 1] = (handled[version] - start) / 1e6
    received[version], handled[version] = nil, nil
  end
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 10)
  return toReceive, toHandle, opened
end

local ok, err = pcall(function()
  local toReceive, toHandle, count = timeEdits({ exe, 'lsp', '--no-config' }, edits)
  -- The replay: a server that answers each change at once with the last
  -- publish (replay_server.mjs), over the same client, buffer and edits.
  local paramsFile = os.getenv('BENCH_OUT') .. '.publish.json'
  local f = assert(io.open(paramsFile, 'w'))
  f:write(vim.json.encode(lastResult))
  f:close()
  local replayReceive, replayHandle = timeEdits({ 'node', replay, paramsFile }, math.min(edits, 200))
  os.remove(paramsFile)
  local result = {
    client = 'neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor),
    diagnostics = count, edits = edits,
    first200 = { received = summary(slice(toReceive, 1, 200)), handled = summary(slice(toHandle, 1, 200)) },
    last200 = { received = summary(slice(toReceive, #toReceive - 199, #toReceive)),
                handled = summary(slice(toHandle, #toHandle - 199, #toHandle)) },
    replay = { received = summary(replayReceive), handled = summary(replayHandle) },
  }
  f = assert(io.open(out, 'w'))
  f:write(vim.json.encode(result), '\n')
  f:close()
end)

if not ok then fail(tostring(err)) end
vim.cmd('qall!')
