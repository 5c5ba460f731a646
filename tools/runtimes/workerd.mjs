// Serves a bundled Worker module under Cloudflare's workerd through miniflare, as wrangler would, for test/runtimes:
// prints `listening <url>` once it accepts requests and stops on SIGTERM. It lives here, beside its own
// node_modules, so the root install needs no miniflare. Usage: node tools/runtimes/workerd.mjs <worker.js>
import { dirname, resolve } from 'node:path';
import { Log, LogLevel, Miniflare } from 'miniflare';

const script = process.argv[2];
if (!script) {
  console.error('usage: node tools/runtimes/workerd.mjs <worker.js>');
  process.exit(2);
}
const mf = new Miniflare({
  modules: true,
  scriptPath: resolve(script),
  modulesRoot: dirname(resolve(script)),
  compatibilityDate: '2026-04-01',
  host: '127.0.0.1',
  port: 0,
  // workerd reports each stream a client closes as a broken pipe; errors only.
  log: new Log(LogLevel.ERROR),
});
const base = await mf.ready;
process.stdout.write(`listening ${new URL('/mcp', base).href}\n`);
process.once('SIGTERM', () => {
  mf.dispose().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
});
