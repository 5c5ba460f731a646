// Inside a sandbox allowed a list of hosts: a small Node program (run with `node -e`, so it needs no file) that
// listens on the sandbox's own loopback, where HTTP_PROXY and HTTPS_PROXY point, and passes each connection to the
// host's filtering proxy through the Unix socket bound into the sandbox; then it runs the server and ends as it ends.

/** The loopback port of the proxy inside the sandbox (its network namespace is its own, so no port is taken). */
export const PROXY_PORT_INSIDE = 3128;

const SOURCE = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socket, port, command, ...args] = process.argv.slice(1);
const server = net.createServer((c) => {
  const up = net.connect(socket);
  c.on('error', () => up.destroy());
  up.on('error', () => c.destroy());
  c.pipe(up).pipe(c);
});
server.on('error', (e) => { process.stderr.write('mcpkit sandbox forwarder: ' + e.message + '\\n'); process.exit(70); });
server.listen(Number(port), '127.0.0.1', () => {
  server.unref();
  const child = spawn(command, args, { stdio: 'inherit' });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
  child.on('error', (e) => { process.stderr.write('mcpkit sandbox: cannot start ' + command + ': ' + e.message + '\\n'); process.exit(127); });
  child.on('exit', (code, signal) => {
    if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
    process.exit(code ?? 1);
  });
});
`;

/** The words that run the forwarder before `command args…` (with the Node at `node`). */
export function forwarderWords(node: string, socketInside: string): string[] {
  return [node, '-e', SOURCE, '--', socketInside, String(PROXY_PORT_INSIDE)];
}

/** The variables that send a sandboxed server's HTTP clients to the forwarder. */
export function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT_INSIDE}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
  };
}
