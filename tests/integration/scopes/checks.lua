-- ljcheck.scope in a LuaJIT host, one section per run:
--   luajit checks.lua <section>   or   luajit -e "SECTION = '<section>'" checks.lua
-- Prints "ok <section>" when every check of the section passed; raises otherwise.
local ljcheck = require("ljcheck")
local scope = ljcheck.scope
local section = assert(arg[1] or SECTION, "usage: checks.lua <section>")

-- The heap in bytes, exact: LuaJIT's collectgarbage("count") is total / 1024.
local function heap() return collectgarbage("count") * 1024 end

local function expectError(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error containing '" .. pattern .. "'")
  assert(tostring(err):find(pattern, 1, true), "error '" .. tostring(err) .. "' does not contain '" .. pattern .. "'")
  return err
end

local function equal(actual, expected, what)
  assert(actual == expected, string.format("%s: expected %.17g, got %.17g", what, expected, actual))
end

local sections = {}

-- 10,000 frames with random allocation and forced collections: mem.net is the
-- heap after the last done minus the heap before the first mark, to the byte.
-- The collector is stopped only around the readings the test compares with,
-- so that none runs between a reading and the mark or done beside it.
function sections.telescoping()
  math.randomseed(12345)
  local keep, slot = {}, 0
  local function allocate(n)
    for _ = 1, n do
      slot = slot % 300 + 1
      local kind = math.random(3)
      if kind == 1 then keep[slot] = string.rep("x", math.random(1, 700)) .. slot
      elseif kind == 2 then keep[slot] = {math.random(), math.random(), slot}
      else keep[slot] = nil end
    end
  end
  scope.mark("frame"); scope.mark("update"); scope.done(); scope.done()  -- labels known
  scope.reset()
  local frames = 10000
  local firstUpdate, lastUpdate, last
  collectgarbage("stop")
  local first = heap()
  for i = 1, frames do
    scope.mark("frame")
    collectgarbage("restart")
    allocate(math.random(0, 6))
    if i == 1 then collectgarbage("stop"); firstUpdate = heap() end
    scope.mark("update")
    collectgarbage("restart")
    allocate(math.random(0, 6))
    if i % 250 == 0 then collectgarbage("collect") end
    if i % 7 == 0 then collectgarbage("step", 10) end
    if i == frames then collectgarbage("stop") end
    scope.done()
    if i == frames then lastUpdate = heap(); collectgarbage("restart") end
    allocate(math.random(0, 4))
    if i == frames then collectgarbage("stop") end
    scope.done()
    if i == frames then last = heap() else allocate(math.random(0, 4)) end  -- between frames: I
  end
  collectgarbage("restart")
  local tree = scope.convert(scope.root)
  local frame, update = tree.children.frame.stats, tree.children.frame.children.update.stats
  equal(frame.count, frames, "frame count")
  equal(frame.mem.net, last - first, "frame mem.net")
  equal(frame.mem_delta.sum + frame.mem.inverse, frame.mem.net, "frame sum D + sum I")
  assert(frame.mem.inverse ~= 0, "the allocation between frames shows as the inverse delta")
  equal(update.mem.net, lastUpdate - firstUpdate, "update mem.net")
  equal(tree.stats.mem.net, last - first, "root mem.net")
  assert(frame.mem_delta.sum ~= frame.mem.net)
end

-- Allocations under 1 KB show, in bytes.
function sections.bytes()
  scope.mark("small"); scope.done(); scope.reset()
  collectgarbage("stop")
  local sum, keep = 0, {}
  for i = 1, 50 do
    local before = heap()
    scope.mark("small")
    keep[i] = string.rep("y", 10) .. i
    scope.done()
    sum = sum + heap() - before
  end
  collectgarbage("restart")
  local small = scope.convert(scope.root.children.small).stats
  equal(small.mem_delta.sum, sum, "mem_delta.sum")
  assert(small.mem_delta.avg > 0 and small.mem_delta.avg < 1024,
         "a sub-KB allocation per scope: mem_delta.avg " .. small.mem_delta.avg)
  assert(small.mem_delta.avg ~= math.floor(small.mem_delta.avg / 1024) * 1024, "not whole KB")
end

-- After the first frame, 100,000 mark/done pairs of known labels leave the
-- Lua heap byte-identical with the collector stopped: compiled (after a
-- warm-up run of the same code, since the JIT keeps its traces in the Lua
-- heap) and interpreted.
function sections.steady()
  local mark, done = scope.mark, scope.done
  local function pairs100k()  -- 33,333 frames of 3 pairs, and 1 pair
    for _ = 1, 33333 do
      mark("frame")
      mark("update"); done()
      mark("render"); done()
      done()
    end
    mark("frame"); done()
  end
  local function measure()
    collectgarbage("collect")
    collectgarbage("stop")
    local before = heap()
    pairs100k()
    local after = heap()
    collectgarbage("restart")
    return after - before
  end
  mark("frame"); done()  -- the first frame: labels registered, nodes created
  pairs100k()            -- warm-up: the JIT compiles the loop
  equal(measure(), 0, "heap growth over 100,000 pairs, compiled")
  jit.off()
  equal(measure(), 0, "heap growth over 100,000 pairs, interpreted")
  jit.on()
  equal(scope.root.children.frame.count, 1 + 3 * 33334, "frame count")
end

-- mark and done inside a hot loop compile into the loop's trace: a trace
-- session sees no abort and no stitch (benign ones included).
function sections.traces()
  local session = ljcheck.trace({includeBenign = true})
  local x = 0
  for i = 1, 20000 do
    scope.mark("frame")
    x = x + i
    scope.mark("update"); scope.done()
    scope.done()
  end
  local report = session:stop()
  equal(report.totalAborts, 0, "aborts")
  equal(#report.sites, 0, "sites")
  equal(scope.root.children.frame.count, 20000, "frame count")
end

function sections.misuse()
  local err = expectError("ljcheck.scope.done(): no scope is open (a done() without its mark())", scope.done)
  local function doneHere() scope.done() end
  err = expectError("checks.lua:", doneHere)  -- raised at the caller's line
  expectError("the label must be a string, got a number", scope.mark, 5)
  expectError("the label must be a string, got a nil", scope.mark)
  expectError("the label must be a string, got a table", scope.mark, {})
  assert(scope.root.open == false)
  scope.mark("frame")
  scope.mark("update")
  assert(scope.root.open and scope.root.children.frame.open)
  expectError("ljcheck.scope.convert(node): scope 'frame/update' is still open", scope.convert,
              scope.root.children.frame)
  expectError("scope 'frame/update' is still open", scope.convert, scope.root)
  expectError("ljcheck.scope.reset(): scope 'frame/update' is still open", scope.reset)
  scope.done()
  local update = scope.convert(scope.root.children.frame.children.update)  -- closed: fine
  assert(update.stats.count == 1 and update.label == "update" and update.path == "frame/update")
  scope.done()
  expectError("expected a scope node (ljcheck.scope.root or a node of its .children), got a table",
              scope.convert, {})
  expectError("got nothing", scope.convert)
  local old = scope.root.children.frame
  scope.reset()
  expectError("this scope node is from before ljcheck.scope.reset()", scope.convert, old)
  expectError("the seed must be a whole number", scope.reset, "x")
  expectError("the seed must be a whole number", scope.reset, 1.5)
  scope.reset(2)
  assert(next(scope.convert(scope.root).children) == nil)
end

-- Decided behaviour: the scope stack belongs to the VM, not to a coroutine.
-- A scope left open across a yield stays open: whatever runs until its done()
-- counts into it, scopes marked meanwhile nest under it, and done() closes the
-- innermost open scope whichever coroutine calls it.
function sections.coroutines()
  local request = coroutine.create(function()
    scope.mark("request")
    coroutine.yield()
    scope.done()
  end)
  assert(coroutine.resume(request))
  scope.mark("other"); scope.done()  -- main, while "request" is open
  assert(scope.root.children.request.children.other, "other nests under the open request")
  assert(scope.root.children.other == nil)
  expectError("scope 'request' is still open", scope.convert, scope.root)
  assert(coroutine.resume(request))
  assert(coroutine.status(request) == "dead")
  local tree = scope.convert(scope.root)
  assert(tree.children.request.stats.count == 1)
  assert(tree.children.request.stats.time.max >= tree.children.request.children.other.stats.time.max)

  -- The main coroutine's done() closes a scope another coroutine opened; that
  -- coroutine's own done() then finds none open and raises.
  local job = coroutine.create(function()
    scope.mark("job")
    coroutine.yield()
    scope.done()
  end)
  assert(coroutine.resume(job))
  scope.done()
  assert(scope.root.children.job.count == 1)
  local ok, err = coroutine.resume(job)
  assert(not ok and err:find("no scope is open", 1, true), tostring(err))
end

-- The tree: root and .children by label; convert's structure.
function sections.tree()
  for _ = 1, 300 do
    scope.mark("frame")
    scope.mark("update"); scope.done()
    scope.mark("render"); scope.mark("draw"); scope.done(); scope.done()
    scope.done()
  end
  local frame = scope.root.children.frame
  assert(tostring(scope.root) == "ljcheck.ScopeNode(root)")
  assert(tostring(frame.children.render.children.draw) == "ljcheck.ScopeNode(frame/render/draw)")
  assert(frame.label == "frame" and frame.count == 300 and frame.open == false)
  local tree = scope.convert(scope.root)
  assert(tree.label == "root" and tree.stats.count == 0)
  local f = tree.children.frame
  assert(f.label == "frame" and f.children.update and f.children.render.children.draw)
  for _, node in ipairs({f, f.children.update, f.children.render, f.children.render.children.draw}) do
    local t = node.stats.time
    assert(node.stats.count == 300)
    assert(t.avg > 0 and t.p50 > 0 and t.p50 <= t.p90 and t.p90 <= t.max, node.label)
    assert(type(node.stats.mem_delta.avg) == "number" and type(node.stats.mem.net) == "number")
  end
  assert(f.stats.time.avg >= f.children.render.stats.time.avg)
end

local run = sections[section]
if not run then error("unknown section '" .. section .. "'") end
run()
print("ok " .. section)
