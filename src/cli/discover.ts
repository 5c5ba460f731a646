// `mcpkit discover <target>`: what the server is: era, revision, capabilities, server info, instructions.
import type { Command } from 'commander';
import { withTarget } from './options.js';
import { type CommonFlags, execute } from './run.js';

export function register(program: Command): void {
  withTarget(
    program
      .command('discover')
      .description('Show the era, protocol revision, capabilities, server info and instructions of a server')
      .argument('[target]', 'URL or configured server name'),
  ).action((target: string | undefined, flags: CommonFlags) =>
    execute(flags, async () => {
      const [{ withConnection }, { out, outJson }] = await Promise.all([
        import('./session.js'),
        import('./output.js'),
      ]);
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
    }),
  );
}
