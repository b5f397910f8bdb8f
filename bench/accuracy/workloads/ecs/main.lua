-- Driver: a particle/agent simulation at 60 frames per second: movers that
-- bounce, seekers that chase a target, short-lived sparks spawned by timers.
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = dir .. "/?.lua;" .. package.path

local ecs = require("ecs")
local vec, systems = ecs.vec, ecs.systems
local random, format = math.random, string.format

local FRAMES = tonumber(arg and arg[1]) or 4000
math.randomseed(42)

local world = ecs.world()
world.bounds = { w = 800, h = 600 }
world:system("seek", { "pos", "vel", "seek" }, systems.seek, 1)
world:system("movement", { "pos", "vel" }, systems.movement, 2)
world:system("lifetime", { "ttl" }, systems.lifetime, 3)
world:system("health", { "health" }, systems.health, 4)

local player = world:spawn({ pos = vec(400, 300), vel = vec(30, -20), health = { hp = 100, max = 100, regen = 1 } })

for i = 1, 150 do
  world:spawn({ pos = vec(random() * 800, random() * 600), vel = vec(random(-50, 50), random(-50, 50)) })
end
for i = 1, 40 do
  world:spawn({
    pos = vec(random() * 800, random() * 600), vel = vec(0, 0),
    seek = { target = player, accel = 60, maxSpeed = 90 },
  })
end

local expired, deaths = 0, 0
world:on("expired", function(e, t) expired = expired + 1 end)
world:on("died", function(e) deaths = deaths + 1 end)

local function spark(x, y, n)
  for k = 1, n do
    world:spawn({ pos = vec(x, y), vel = vec(random(-80, 80), random(-80, 80)), ttl = 0.5 + random() })
  end
end

local dt = 1 / 60
for frame = 1, FRAMES do
  if frame % 20 == 0 then
    world:after(0.1, spark, player.pos.x, player.pos.y, 8)
  end
  world:update(dt)
end

assert(world:count("pos") > 100)
print(format("ecs: %d entities, %d expired, player at (%.1f, %.1f)",
  #world.entities, expired, player.pos.x, player.pos.y))
