-- `ljcheck lsp` in a real editor: Debian's Neovim 0.7, headless, with its
-- built-in LSP client. Exit status 0 when every check passes, 1 otherwise.
-- Run: LJCHECK_EXE=build/bin/ljcheck nvim --headless -u NONE -c 'luafile tests/lsp/neovim_test.lua'
-- (0.7 has neither vim.lsp.start nor `nvim -l`: start_client + buf_attach_client.)

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local exe = os.getenv('LJCHECK_EXE') or (here .. '/../../build/bin/ljcheck')
local fixture = here .. '/fixture.lua'

local function fail(message)
  io.stderr:write('neovim_test: FAIL: ' .. message .. '\n')
  vim.cmd('cquit 1')
end

local function check(condition, message)
  if not condition then fail(message) end
  return condition
end

local function codeOf(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

-- The diagnostics of `buf` with one reasonId.
local function withCode(buf, code)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if codeOf(d) == code then table.insert(found, d) end
  end
  return found
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = 'ljcheck',
    cmd = { exe, 'lsp' },
    root_dir = here,  -- project mode over this folder only: the repository root would analyze every file in it first
  })
  check(client_id, 'the client did not start ' .. exe)
  vim.cmd('edit ' .. vim.fn.fnameescape(fixture))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'lua'
  check(vim.lsp.buf_attach_client(buf, client_id), 'buf_attach_client failed')

  -- Diagnostics arrive, on the `function` keyword, in byte columns as Neovim
  -- counts them (the server sent UTF-16; Neovim converted).
  check(vim.wait(10000, function() return #withCode(buf, 'NYIBC:FNEW') > 0 end, 20), 'no NYIBC:FNEW diagnostic')
  local fnew = withCode(buf, 'NYIBC:FNEW')[1]
  local line = vim.api.nvim_buf_get_lines(buf, fnew.lnum, fnew.lnum + 1, true)[1]
  local keyword = line:find('function()', 1, true) - 1
  check(fnew.col == keyword, ('FNEW at column %d, expected %d'):format(fnew.col, keyword))
  check(fnew.end_col == keyword + #'function', ('FNEW ends at %d'):format(fnew.end_col))
  check(fnew.severity == vim.diagnostic.severity.ERROR, 'FNEW in a loop is an error (blacklist)')
  check(fnew.source == 'ljcheck', 'source is ljcheck')
  check(#withCode(buf, 'NYIBC:UCLO') == 1, 'the masked NYIBC:UCLO is shown')

  local client = vim.lsp.get_client_by_id(client_id)

  -- Hover on the construct.
  local hover = client.request_sync('textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = fnew.lnum, character = fnew.col + 1 },
  }, 5000, buf)
  check(hover and hover.result and hover.result.contents.value:find('NYIBC:FNEW', 1, true), 'hover names the reason')

  -- The line quickfix, applied by Neovim itself.
  local actions = client.request_sync('textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = fnew.lnum, character = 0 }, ['end'] = { line = fnew.lnum, character = 0 } },
    context = { diagnostics = {} },
  }, 5000, buf)
  local lineFix
  for _, a in ipairs(actions and actions.result or {}) do
    if a.title:find('NYIBC:FNEW on this line', 1, true) then lineFix = a end
  end
  check(lineFix, 'no line quickfix for NYIBC:FNEW')
  vim.lsp.util.apply_workspace_edit(lineFix.edit, client.offset_encoding or 'utf-16')
  local fixed = vim.api.nvim_buf_get_lines(buf, fnew.lnum, fnew.lnum + 1, true)[1]
  check(fixed:find('-- ljcheck: allow(NYIBC:FNEW)', 1, true), 'the comment is in the buffer: ' .. fixed)
  check(vim.wait(10000, function() return #withCode(buf, 'NYIBC:FNEW') == 0 end, 20), 'FNEW still reported after the quickfix')

  -- An edit through nvim_buf_set_text (Neovim sends an incremental
  -- didChange): removing the suppression brings FNEW back.
  local now = vim.api.nvim_buf_get_lines(buf, fnew.lnum, fnew.lnum + 1, true)[1]
  local from = now:find(' -- ljcheck', 1, true) - 1
  vim.api.nvim_buf_set_text(buf, fnew.lnum, from, fnew.lnum, #now, {})
  check(vim.wait(10000, function() return #withCode(buf, 'NYIBC:FNEW') == 1 end, 20), 'FNEW not back after the edit')
  local back = withCode(buf, 'NYIBC:FNEW')[1]
  check(back.lnum == fnew.lnum and back.col == fnew.col, 'FNEW back where it was')

  vim.lsp.stop_client(client_id)

  -- A workspace whose .ljcheck.toml has an error: Neovim shows the server's
  -- window/showMessage (through vim.notify), naming the file and the line.
  local broken = vim.fn.tempname()
  vim.fn.mkdir(broken, 'p')
  vim.fn.writefile({ '[reasons]', 'NYBIC = "off"' }, broken .. '/.ljcheck.toml')
  vim.fn.writefile(vim.fn.readfile(fixture), broken .. '/fixture.lua')
  local notified = {}
  local notify = vim.notify
  vim.notify = function(message, level) table.insert(notified, { message = message, level = level }) end
  local other = vim.lsp.start_client({ name = 'ljcheck-broken-config', cmd = { exe, 'lsp' }, root_dir = broken })
  vim.cmd('edit ' .. vim.fn.fnameescape(broken .. '/fixture.lua'))
  local otherBuf = vim.api.nvim_get_current_buf()
  vim.bo[otherBuf].filetype = 'lua'
  check(vim.lsp.buf_attach_client(otherBuf, other), 'buf_attach_client failed for the second workspace')
  check(vim.wait(10000, function() return #notified > 0 end, 20), 'no message about the broken config')
  vim.notify = notify
  check(notified[1].message:find('.ljcheck.toml:2:9:', 1, true), 'the message names the place: ' .. notified[1].message)
  check(notified[1].message:find('did you mean NYIBC?', 1, true), 'and the nearest name: ' .. notified[1].message)
  check(notified[1].level == vim.log.levels.ERROR, 'as an error')
  check(vim.wait(10000, function() return #withCode(otherBuf, 'NYIBC:FNEW') > 0 end, 20),
    'the server runs without the config and still publishes')
  vim.lsp.stop_client(other)
  vim.fn.delete(broken, 'rf')
end)

if not ok then fail(tostring(err)) end
vim.cmd('qall!')
