// What `mcpkit discover` does once it runs (loaded only then).
import type { CommonFlags } from '../../shared/execute.js';
import { out, outJson } from '../../shared/output.js';
import { withConnection } from '../../shared/session.js';

/** Connects to the target and prints what it is: era, revision, capabilities, server info, instructions. */
export async function discover(target: string | undefined, flags: CommonFlags): Promise<number> {
  await withConnection(target, flags, async ({ client }, format) => {
    const era = client.era === 'stateless' ? 'modern' : 'legacy';
    const info = {
      era,
      protocolVersion: client.protocolVersion,
      serverInfo: client.serverInfo,
      capabilities: client.serverCapabilities ?? {},
      instructions: client.instructions,
    };
    if (format === 'json') return outJson(info);
    const server = client.serverInfo;
    out(`server        ${server === undefined ? '(not given)' : `${server.name} ${server.version}`}`);
    out(`era           ${era} (${client.era})`);
    out(`revision      ${client.protocolVersion ?? ''}`);
    const caps = Object.entries(info.capabilities).map(([name, value]) => {
      const flagsOf =
        typeof value === 'object' && value !== null
          ? Object.entries(value)
              .filter(([, v]) => v === true)
              .map(([k]) => k)
          : [];
      return flagsOf.length > 0 ? `${name} (${flagsOf.join(', ')})` : name;
    });
    out(`capabilities  ${caps.join(', ') || '(none)'}`);
    if (info.instructions) out(`instructions\n${info.instructions.replace(/^/gm, '  ')}`);
  });
  return 0;
}
