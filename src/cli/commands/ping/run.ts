// What `mcpkit ping` does once it runs (loaded only then).
import type { CommonFlags } from '../../shared/execute.js';
import { out, outJson } from '../../shared/output.js';
import { withConnection } from '../../shared/session.js';

/** Pings the target and prints how long the answer took. */
export async function ping(target: string | undefined, flags: CommonFlags): Promise<number> {
  await withConnection(target, flags, async ({ client, timeout }, format) => {
    const start = performance.now();
    await client.ping({ timeout });
    const ms = Math.round((performance.now() - start) * 10) / 10;
    if (format === 'json') outJson({ ok: true, ms });
    else out(`ok (${ms} ms)`);
  });
  return 0;
}
