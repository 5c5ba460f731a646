// The topology of a cluster on one machine: a redis-server (or one given), N instances of the everything example
// server started with the stable command `npm run --silent example:server -- --http PORT --redis URL` (here its
// `node dist/examples/everything/server.js` form), and nginx spreading requests round robin over them without
// affinity. Used by `npm run cluster` and by the cluster tests; every process is stopped by its pid.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REDIS_SERVER = '/usr/bin/redis-server';
export const NGINX = '/usr/sbin/nginx';
const SERVER_JS = resolve(dirname(fileURLToPath(import.meta.url)), '../everything/server.js');

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/** Resolves once something accepts connections on `port`; rejects after `ms`. */
export async function waitForPort(port: number, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((done) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    if (Date.now() > end) throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The nginx configuration: round robin, no affinity, no buffering (SSE), long read timeouts (streams). */
export function nginxConfig(dir: string, port: number, upstreams: readonly number[]): string {
  const servers = upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n');
  return `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream mcpkit {
${servers}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mcpkit;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The name without the port: the instances check it (allowedHosts; loopback names by default).
      proxy_set_header Host $host;
      # Server-sent events go out as they are written.
      proxy_buffering off;
      proxy_cache off;
      proxy_request_buffering off;
      # Streams stay open for long; the server sends keep-alive comments every 15 s.
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
    }
  }
}
`;
}

/** One process of the topology. */
export interface Member {
  readonly name: string;
  readonly port: number;
  child: ChildProcess;
  /** Its stderr so far (diagnostics). */
  log: string;
}

/** Options of {@link startTopology}. */
export interface TopologyOptions {
  /** How many instances. Default 3. */
  instances?: number;
  /** Use this Redis instead of starting one. */
  redisUrl?: string;
  /** nginx's port. Default: a free one. */
  port?: number;
  /** The shared requestState key (MCPKIT_REQUEST_STATE_KEY). Default: random. */
  requestStateKey?: string;
}

/** Waits until the member listens; fails naming it, with its exit status and the end of its stderr. */
async function ready(m: Member, ms = 30_000): Promise<void> {
  try {
    await waitForPort(m.port, ms);
  } catch (e) {
    const status = m.child.exitCode ?? m.child.signalCode ?? 'running';
    throw new Error(
      `${m.name} (${status}): ${e instanceof Error ? e.message : String(e)}\n${m.log.slice(-2000)}`,
    );
  }
}

/** Spawns a process whose stderr is kept, and whose exit is noticed. */
function member(
  name: string,
  port: number,
  command: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Member {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env: env ?? process.env });
  const m: Member = { name, port, child, log: '' };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    m.log = (m.log + chunk).slice(-20_000);
  });
  return m;
}

/** A running topology: nginx in front of N instances sharing one Redis. */
export class Topology {
  readonly dir: string;
  readonly redisPort: number | undefined;
  readonly redisUrl: string;
  readonly nginx: Member;
  readonly instances: Member[];
  readonly redis: Member | undefined;
  readonly requestStateKey: string;

  private constructor(fields: {
    dir: string;
    redis: Member | undefined;
    redisUrl: string;
    nginx: Member;
    instances: Member[];
    requestStateKey: string;
  }) {
    this.dir = fields.dir;
    this.redis = fields.redis;
    this.redisPort = fields.redis?.port;
    this.redisUrl = fields.redisUrl;
    this.nginx = fields.nginx;
    this.instances = fields.instances;
    this.requestStateKey = fields.requestStateKey;
  }

  /** The endpoint behind nginx. */
  get url(): string {
    return `http://127.0.0.1:${this.nginx.port}/mcp`;
  }

  /** The legacy HTTP+SSE endpoint (2024-11-05: GET the stream, POST to the `endpoint` it announces) behind nginx. */
  get sseUrl(): string {
    return `http://127.0.0.1:${this.nginx.port}/sse`;
  }

  /** Each instance's own endpoint. */
  instanceUrl(i: number): string {
    return `http://127.0.0.1:${this.instances[i]?.port}/mcp`;
  }

  static async start(options: TopologyOptions = {}): Promise<Topology> {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-cluster-'));
    let redis: Member | undefined;
    let redisUrl = options.redisUrl;
    const started: Member[] = [];
    try {
      if (redisUrl === undefined) {
        const port = await freePort();
        mkdirSync(join(dir, 'redis'));
        redis = member('redis', port, REDIS_SERVER, redisArgs(port, join(dir, 'redis')));
        started.push(redis);
        await ready(redis);
        redisUrl = `redis://127.0.0.1:${port}`;
      }
      const requestStateKey = options.requestStateKey ?? randomBytes(32).toString('base64url');
      const instances: Member[] = [];
      for (let i = 0; i < (options.instances ?? 3); i++) {
        instances.push(await startInstance(i, redisUrl, requestStateKey));
        started.push(instances[i] as Member);
      }
      await Promise.all(instances.map((m) => ready(m)));
      const port = options.port ?? (await freePort());
      const conf = join(dir, 'nginx.conf');
      writeFileSync(
        conf,
        nginxConfig(
          dir,
          port,
          instances.map((m) => m.port),
        ),
      );
      const nginx = member('nginx', port, NGINX, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')]);
      started.push(nginx);
      await ready(nginx);
      return new Topology({ dir, redis, redisUrl, nginx, instances, requestStateKey });
    } catch (e) {
      await Promise.all(started.map((m) => stop(m)));
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** Kills an instance at once (SIGKILL: no goodbye to Redis or its clients). */
  async kill(i: number): Promise<void> {
    const m = this.instances[i];
    if (m) await stop(m, 'SIGKILL');
  }

  /** Stops an instance gracefully (SIGTERM: it closes its endpoints and its server, then leaves Redis). */
  async terminate(i: number): Promise<void> {
    const m = this.instances[i];
    if (m) await stop(m, 'SIGTERM');
  }

  /** Starts a killed instance again on its port. */
  async revive(i: number): Promise<void> {
    const old = this.instances[i];
    if (!old) return;
    const m = await startInstance(i, this.redisUrl, this.requestStateKey, old.port);
    this.instances[i] = m;
    await ready(m);
  }

  /** Stops Redis (SIGKILL with `hard`) and starts it again on its port and directory. */
  async restartRedis(hard = false): Promise<void> {
    const redis = this.redis;
    if (!redis) throw new Error('this topology uses a Redis it did not start');
    await stop(redis, hard ? 'SIGKILL' : 'SIGTERM');
    const again = member('redis', redis.port, REDIS_SERVER, redisArgs(redis.port, join(this.dir, 'redis')));
    (this as { redis: Member | undefined }).redis = again;
    await ready(again);
  }

  /** Stops everything (nginx, the instances, then Redis) and removes the directory. */
  async stop(): Promise<void> {
    await stop(this.nginx);
    await Promise.all(this.instances.map((m) => stop(m)));
    if (this.redis) await stop(this.redis);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Redis with an fsync per write: an event acknowledged is on disk and survives a restart, even a kill -9. */
export function redisArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--daemonize',
    'no',
  ];
}

async function startInstance(i: number, redisUrl: string, key: string, port?: number): Promise<Member> {
  const p = port ?? (await freePort());
  const env = { ...process.env, MCPKIT_REQUEST_STATE_KEY: key };
  return member(
    `instance ${i}`,
    p,
    process.execPath,
    [SERVER_JS, '--http', String(p), '--redis', redisUrl],
    env,
  );
}

/** Stops a process by its pid and waits for its exit. */
async function stop(m: Member, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const child = m.child;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((done) => child.once('exit', done));
  process.kill(child.pid, signal);
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      process.kill(child.pid, 'SIGKILL');
  }, 5_000);
  await exited;
  clearTimeout(timer);
}
