// Structural check of a timeline (Chrome Trace Event JSON) as `ljcheck run
// --timeline` writes it: every event has ph, pid, tid (and ts unless it is
// metadata); ts never goes back on a (pid, tid) lane; B/E slices are strictly
// nested per lane and all closed; abort instants carry reasonId, location and
// zone; the Lua heap counter and thread names are there.
// usage: node timeline_check.mjs <timeline.json>
import fs from 'node:fs';

const trace = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const problems = [];
const open = new Map(), last = new Map();
let aborts = 0, counters = 0, threadNames = 0, slices = 0;
for (const e of trace.traceEvents) {
  if (!e.ph || e.pid === undefined || e.tid === undefined) { problems.push('event without ph/pid/tid: ' + JSON.stringify(e)); continue; }
  if (e.ph === 'M') { if (e.name === 'thread_name') threadNames++; continue; }
  const lane = `${e.pid}/${e.tid}`;
  if (typeof e.ts !== 'number') problems.push('no ts: ' + JSON.stringify(e));
  if (last.has(lane) && e.ts < last.get(lane)) problems.push(`ts goes back on ${lane} at ${e.ts}`);
  last.set(lane, e.ts);
  const stack = open.get(lane) || [];
  open.set(lane, stack);
  if (e.ph === 'B') { stack.push(e.name); slices++; }
  if (e.ph === 'E' && stack.pop() !== e.name) problems.push(`E ${e.name} on ${lane} does not close the innermost slice`);
  if (e.ph === 'i' && e.name.startsWith('abort ')) {
    aborts++;
    for (const key of ['reasonId', 'location', 'zone'])
      if (!e.args || typeof e.args[key] !== 'string') problems.push(`abort without args.${key}`);
  }
  if (e.ph === 'C') counters++;
}
for (const [lane, stack] of open) if (stack.length) problems.push(`slices left open on ${lane}: ${stack}`);
if (!slices) problems.push('no zone slices');
if (!aborts) problems.push('no abort instants');
if (!threadNames) problems.push('no thread names');
if (problems.length) { console.error('timeline: ' + problems.slice(0, 10).join('\n')); process.exit(1); }
console.log(`timeline: ${slices} slices, ${aborts} aborts, ${counters} counter samples, well formed`);
