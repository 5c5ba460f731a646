// Workload 5: spawn of a stdio server to its initialize reply, each paired with a `node -e 0` run (the floor), so
// the floor is measured under the same conditions and subtracted per implementation.

import { onCpus } from '../lib/affinity.js';
import { median } from '../lib/stats.js';
import { coldStartMs, nodeFloorMs } from '../load/stdio.js';
import type { Workload } from './types.js';

const TIMEOUT_MS = 15_000;
const FLOOR = { command: process.execPath, args: ['-e', '0'] };

export const coldStart: Workload = {
  id: 'cold-start',
  group: 'coldstart',
  title: 'cold start: spawn to initialize reply',
  metrics: [
    { key: 'above_floor_ms', label: 'above node -e 0 floor', unit: 'ms', better: 'lower', digits: 1 },
    { key: 'start_ms', label: 'spawn to initialize reply', unit: 'ms', better: 'lower', digits: 1 },
    { key: 'floor_ms', label: 'node -e 0 floor', unit: 'ms', better: 'lower', digits: 1, ratios: false },
  ],
  applies: () => true,
  async run(impl, profile) {
    const floors: number[] = [];
    const starts: number[] = [];
    for (let i = 0; i < profile.coldStarts; i++) {
      floors.push(await nodeFloorMs(onCpus(FLOOR, 'any'), TIMEOUT_MS));
      starts.push(await coldStartMs(onCpus(impl.stdio, 'any'), TIMEOUT_MS));
    }
    const start = median(starts);
    const floor = median(floors);
    return { above_floor_ms: start - floor, start_ms: start, floor_ms: floor };
  },
};
