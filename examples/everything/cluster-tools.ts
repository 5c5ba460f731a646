// Tools that show a cluster at work (registered when the server runs as one instance of several): which instance
// answered, a long stream of progress notifications to cut and resume across instances, and a task that another
// instance starts again when the one running it dies.
import { z } from 'zod';
import type { McpServer } from '../../src/index.js';
import { sleep } from './tools.js';

/** Registers cluster_instance, cluster_progress and cluster_task; `instance` names this process in their answers. */
export function registerClusterTools(server: McpServer, instance: string): void {
  server.tool('cluster_instance', { description: 'Names the instance that answered' }, () => instance);

  server.tool(
    'cluster_progress',
    {
      description:
        'Sends `count` progress notifications `delayMs` apart, then names the instance that ran it; with closeAfter, ends its SSE connection after that many (the client resumes, maybe elsewhere)',
      inputSchema: z.object({
        count: z.number().int().min(1).max(100_000).default(1000),
        delayMs: z.number().int().min(0).max(1000).default(2),
        closeAfter: z.number().int().min(0).optional(),
      }),
    },
    async ({ count, delayMs, closeAfter }, ctx) => {
      for (let n = 1; n <= count; n++) {
        await ctx.progress(n, count, `step ${n}`);
        if (n === closeAfter) ctx.closeStream();
        if (delayMs > 0) await sleep(delayMs, ctx.signal);
      }
      return `${count} steps done by ${instance}`;
    },
  );
  server.tool(
    'cluster_task',
    {
      description:
        'Runs as a task (tasks extension) for `ms` milliseconds, then names the instance that finished it; when the instance running it dies or shuts down, another instance starts it again (once)',
      inputSchema: z.object({ ms: z.number().int().min(0).max(600_000).default(1000) }),
      // Safe to run twice: it only waits.
      task: { mode: 'required', reruns: 1 },
    },
    async ({ ms }, ctx) => {
      await sleep(ms, ctx.signal);
      return `task done by ${instance}`;
    },
  );
}
