// What tool pinning (issue 22) adds to a host tool call, mcpkit only:
//   node dist/bench/pins.js [--calls 40000] [--block 200]
// Two hosts, each with its own in-process server (one `echo` tool, over the in-memory transport through the host's
// `transportFor`), policy `allow`: one with pinning on (the default, pins in memory), one with `toolPins: false`. Their
// host.callTool runs in interleaved blocks; the medians of the blocks' µs per call are reported side by side, with the
// difference and the ratio (target: the difference ≤ 2 µs), in wall time and in this process's CPU time. Then the pin check alone (`host.toolChange`, the same two
// map lookups and digest comparison a call makes), in ns per check. Run it alone on a quiet machine.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Host, type ServerConfig } from '../src/host.js';
import { createLinkedTransports, McpServer } from '../src/index.js';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '40000' }, block: { type: 'string', default: '200' } },
});
const CALLS = Math.max(1000, Math.min(1_000_000, Number(values.calls)));
const BLOCK = Math.max(10, Math.min(10_000, Number(values.block)));

const config: ServerConfig = {
  name: 'one',
  transport: { type: 'stdio', command: 'unused', args: [], env: {}, namedEnv: [] },
  disabled: false,
  trusted: false,
  source: { file: 'bench', format: 'mcpkit' },
};

async function hostWith(pinning: boolean): Promise<Host> {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.tool(
    'echo',
    {
      description: 'Echoes text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    ({ text }) => String(text),
  );
  const host = new Host([config], {
    defaultApproval: 'allow',
    ...(pinning ? {} : { toolPins: false }),
    transportFor: () => {
      const [clientSide, serverSide] = createLinkedTransports();
      void server.connect(serverSide);
      return clientSide;
    },
  });
  const [status] = await host.start();
  if (status?.state !== 'ready') throw new Error(`not ready: ${status?.reason}`);
  return host;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** µs per call of one block of host.callTool: wall time, and this process's CPU time (user + system). */
async function block(host: Host): Promise<{ wall: number; cpu: number }> {
  const args = { text: 'x' };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < BLOCK; i++) {
    const result = await host.callTool('one__echo', args);
    if (result.isError === true) throw new Error(`the call failed: ${JSON.stringify(result)}`);
  }
  const wall = ((performance.now() - t0) * 1000) / BLOCK;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / BLOCK };
}

console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const on = await hostWith(true);
const off = await hostWith(false);
if (on.toolChange('one__echo') !== undefined) throw new Error('the pinned tool reads as changed');
for (let i = 0; i < 20; i++) {
  await block(on);
  await block(off);
}
const pinned: { wall: number; cpu: number }[] = [];
const unpinned: { wall: number; cpu: number }[] = [];
for (let done = 0; done < CALLS; done += BLOCK) {
  // Alternating which goes first, so neither always follows the other's garbage.
  if ((done / BLOCK) % 2 === 0) {
    pinned.push(await block(on));
    unpinned.push(await block(off));
  } else {
    unpinned.push(await block(off));
    pinned.push(await block(on));
  }
}
console.log(`host.callTool in-process, policy allow, ${CALLS} calls each, interleaved blocks of ${BLOCK}:`);
for (const what of ['wall', 'cpu'] as const) {
  const p = median(pinned.map((b) => b[what]));
  const u = median(unpinned.map((b) => b[what]));
  console.log(
    `  ${what === 'wall' ? 'wall time' : 'CPU time '}: pinning off ${u.toFixed(2)} us/call, on ${p.toFixed(2)} us/call; added ${(p - u).toFixed(2)} us/call (target <= 2 us), on / off ${(p / u).toFixed(3)}`,
  );
}

const CHECKS = 2_000_000;
let changed = 0;
for (let i = 0; i < 100_000; i++) if (on.toolChange('one__echo') !== undefined) changed++;
const t0 = performance.now();
for (let i = 0; i < CHECKS; i++) if (on.toolChange('one__echo') !== undefined) changed++;
const ns = ((performance.now() - t0) * 1e6) / CHECKS;
console.log(
  `the pin check alone (registry lookup + pin lookup + digest comparison): ${ns.toFixed(1)} ns (${changed} changed)`,
);
await on.close();
await off.close();
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
