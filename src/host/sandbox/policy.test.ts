import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ServerConfig } from '../config/types.js';
import { allowedEntry, parseAllowedHost } from './allowed-hosts.js';
import { decideSandbox } from './decide.js';
import { checkSandboxSetting, isNoLooserThan, resolveSandbox, type SandboxSetting } from './policy.js';
import { sandboxTools } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-policy-'));
const home = join(dir, 'home');
mkdirSync(join(home, 'notes'), { recursive: true });
symlinkSync(home, join(dir, 'home-link'));
after(() => rmSync(dir, { recursive: true, force: true }));

function problems(value: unknown): string[] {
  const checked = checkSandboxSetting(value, { home });
  return 'problems' in checked ? checked.problems.map((p) => `${p.field ?? ''}: ${p.message}`) : [];
}

test('checkSandboxSetting: true, false and grants pass; ~/ is the home folder', () => {
  assert.deepEqual(checkSandboxSetting(true), { setting: true });
  assert.deepEqual(checkSandboxSetting(false), { setting: false });
  assert.deepEqual(
    checkSandboxSetting({ read: ['~/notes'], network: ['API.example.com.'], memoryMb: 512 }, { home }),
    {
      setting: { read: [join(home, 'notes')], network: ['api.example.com'], memoryMb: 512 },
    },
  );
});

test('checkSandboxSetting: unknown fields, relative or missing paths, bad limits and hosts are problems', () => {
  assert.match(problems('yes')[0] ?? '', /must be true, false or an object/);
  assert.match(problems({ reed: [] })[0] ?? '', /^reed: unknown field/);
  assert.match(problems({ read: ['notes'] })[0] ?? '', /^read\[0\]: "notes" is relative/);
  assert.match(problems({ write: [join(dir, 'nope')] })[0] ?? '', /^write\[0\]: .* does not exist/);
  assert.match(problems({ read: 'x' })[0] ?? '', /^read: must be a list of paths/);
  assert.match(problems({ cpuSeconds: 1.5 })[0] ?? '', /^cpuSeconds: must be a positive whole number/);
  assert.match(problems({ processes: -1 })[0] ?? '', /^processes: must be a positive whole number/);
  assert.match(problems({ network: 'all' })[0] ?? '', /^network: must be true, false or a list of hosts/);
  assert.match(problems({ network: ['http://x.com'] })[0] ?? '', /^network\[0\]: .* not a URL/);
  assert.match(problems({ force: 'yes' })[0] ?? '', /^force: must be true or false/);
});

test('checkSandboxSetting: `/`, the home folder (through a link too) and a folder holding it need force', () => {
  assert.match(problems({ read: ['/'] })[0] ?? '', /the whole file system: that undoes the sandbox/);
  assert.match(problems({ write: ['~'] })[0] ?? '', /your home folder: that undoes the sandbox/);
  assert.match(problems({ read: [join(dir, 'home-link')] })[0] ?? '', /your home folder/);
  assert.match(problems({ read: [dir] })[0] ?? '', /a folder holding your home folder/);
  assert.deepEqual(problems({ read: ['/', dir], force: true }), []);
  assert.deepEqual(problems({ read: [join(home, 'notes')] }), []);
});

test('resolveSandbox: the own setting wins over the host default; false is none; the preset has its limits', () => {
  assert.equal(resolveSandbox(undefined, undefined), undefined);
  assert.equal(resolveSandbox(false, true), undefined);
  assert.deepEqual(resolveSandbox(undefined, true), {
    network: 'none',
    read: [],
    write: [],
    memoryMb: 1024,
    processes: 256,
  });
  const grants = resolveSandbox({ network: ['a.example.com:443'], cpuSeconds: 5 }, true);
  assert.equal(grants?.cpuSeconds, 5);
  assert.deepEqual(Array.isArray(grants?.network) ? grants.network.map((h) => h.text) : grants?.network, [
    'a.example.com:443',
  ]);
  assert.equal(resolveSandbox({ network: true }, undefined)?.network, 'host');
});

test('isNoLooserThan: grants within, limits no higher', () => {
  const base = resolveSandbox({ read: [home], network: ['a.example.com'], memoryMb: 512 }, undefined)!;
  const tighter = resolveSandbox({ read: [join(home, 'notes')], memoryMb: 256 }, undefined)!;
  assert.equal(isNoLooserThan(tighter, base), true);
  assert.equal(isNoLooserThan(resolveSandbox({ write: [join(home, 'notes')] }, undefined)!, base), false);
  assert.equal(isNoLooserThan(resolveSandbox({ network: true }, undefined)!, base), false);
  assert.equal(isNoLooserThan(resolveSandbox({ memoryMb: 4096 }, undefined)!, base), false);
  assert.equal(isNoLooserThan(resolveSandbox({ network: ['b.example.com'] }, undefined)!, base), false);
});

test('allowed hosts: names, subdomains, ports, addresses; nothing else matches', () => {
  const hosts = [
    'api.example.com',
    '*.cdn.example.com',
    'example.org:8443',
    '127.0.0.1:5000',
    '[::1]:80',
  ].map((e) => {
    const h = parseAllowedHost(e);
    assert.ok(typeof h !== 'string', `${e}: ${String(h)}`);
    return h;
  });
  assert.ok(allowedEntry(hosts, 'API.example.com.', 443));
  assert.ok(allowedEntry(hosts, 'x.cdn.example.com', 443));
  assert.equal(allowedEntry(hosts, 'cdn.example.com', 443), undefined);
  assert.equal(allowedEntry(hosts, 'evil-api.example.com', 443), undefined);
  assert.equal(allowedEntry(hosts, 'api.example.com.evil.net', 443), undefined);
  assert.ok(allowedEntry(hosts, 'example.org', 8443));
  assert.equal(allowedEntry(hosts, 'example.org', 443), undefined);
  assert.ok(allowedEntry(hosts, '127.0.0.1', 5000));
  assert.equal(allowedEntry(hosts, '127.0.0.1', 5001), undefined);
  assert.ok(allowedEntry(hosts, '[::1]', 80));
  for (const bad of ['', 'https://x.com', 'x.com/path', 'x.com:0', 'x.com:99999', '*.1.2.3.4', 'bad host'])
    assert.equal(typeof parseAllowedHost(bad), 'string', bad);
});

const server = (sandbox: SandboxSetting | undefined, extra: Partial<ServerConfig> = {}): ServerConfig => ({
  name: 's',
  transport: { type: 'stdio', command: 'x', args: [], env: {}, namedEnv: [] },
  disabled: false,
  trusted: false,
  source: { file: 'f', format: 'mcpkit' },
  ...(sandbox === undefined ? {} : { sandbox }),
  ...extra,
});
const project = { source: { file: 'f', format: 'mcpkit' as const, scope: 'project' as const } };

test('decideSandbox: a URL server with a sandbox is refused; the host default does not touch it', () => {
  const url = { transport: { type: 'http' as const, url: 'http://x', headers: {} } };
  assert.match(decideSandbox(server(true, url), undefined).refused?.message ?? '', /reached by URL/);
  assert.deepEqual(decideSandbox(server(undefined, url), true), { own: false, notes: [] });
  assert.match(
    decideSandbox(server({ read: ['rel'] }), undefined).refused?.message ?? '',
    /read\[0\]: "rel" is relative/,
  );
});

test('decideSandbox: a project server may only tighten the host default, never drop it or add grants', () => {
  const base = { read: [home] };
  assert.deepEqual(decideSandbox(server({ read: [join(home, 'notes')] }, project), base).policy?.read, [
    join(home, 'notes'),
  ]);
  const widened = decideSandbox(server({ write: [home], force: true }, project), base);
  assert.deepEqual(widened.policy?.write, []);
  assert.match(widened.notes[0] ?? '', /may only be tighter than yours: its own setting is ignored/);
  assert.deepEqual(decideSandbox(server(false, project), base).policy?.read, [home]);
  assert.deepEqual(decideSandbox(server({ network: true }, project), true).policy?.network, 'none');
  // With no default, a project's sandbox is still a sandbox (tighter than none).
  assert.equal(decideSandbox(server({ network: true }, project), undefined).policy?.network, 'host');
  // The person's own server may loosen it: the config is theirs.
  assert.equal(decideSandbox(server(false), true).policy, undefined);
});

test('sandboxTools: other platforms are refused, never unsandboxed; a missing bwrap names the package', () => {
  assert.throws(
    () => sandboxTools({ platform: 'darwin' }),
    /not available on darwin \(macOS's sandbox-exec is not supported\).*not started unsandboxed/,
  );
  assert.throws(() => sandboxTools({ platform: 'win32' }), /not available on win32/);
  assert.throws(() => sandboxTools({ platform: 'linux', path: dir }), /install the bubblewrap package/);
});
