// A server name defined in two of the person's config files (Claude Desktop's and mcpkit's own, say) was a silent
// pick (the later file's entry); it is now an error listing both files, for every command naming a server. Two
// project files likewise. A project entry named like the person's stays as the project-trust work made it: the
// person's answers to the name, the project's is `<name>-project`, and a notice names both files.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mcpkit, ROOT, tempHome } from './helpers.js';

const ODD = join(ROOT, 'dist/test/host/fixtures/odd-server.js');

/** A config entry of a test server that gives `name` as its own: which entry ran is seen from outside. */
const entry = (name: string) => ({ command: process.execPath, args: [ODD, '--name', name] });

function write(file: string, value: unknown): string {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/** A home with Claude Desktop's file and mcpkit's own both defining `everything`; its env and the two files. */
function twoUserFiles() {
  const home = tempHome();
  const config = join(home, '.config');
  const desktop = write(join(config, 'Claude', 'claude_desktop_config.json'), {
    mcpServers: { everything: entry('desktop'), other: entry('other') },
  });
  const mine = write(join(config, 'mcpkit', 'mcpkit.json'), { servers: { everything: entry('mcpkit') } });
  return { env: { HOME: home, XDG_CONFIG_HOME: config }, cwd: tempHome(), desktop, mine };
}

describe('mcpkit: a server name two config files define', { timeout: 300_000 }, () => {
  test("in two of the person's files: exit 1 listing both, for call, tools and discover", async () => {
    const { env, cwd, desktop, mine } = twoUserFiles();
    for (const args of [
      ['call', 'everything', 'echo', 'text=hi'],
      ['tools', 'everything'],
      ['discover', 'everything'],
    ]) {
      const run = await mcpkit(args, { env, cwd });
      assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(
        run.stderr,
        `error: "everything" is defined in 2 config files: ${desktop}, ${mine}; mcpkit does not pick one: give --config FILE for the one you mean, or rename the others\n`,
      );
    }
    const asJson = await mcpkit(['ping', 'everything', '--format', 'json'], { env, cwd });
    assert.deepEqual(JSON.parse(asJson.stderr).error.files, [desktop, mine]);
  });

  test('--config FILE chooses one; another name of the same files works, the duplicate a notice', async () => {
    const { env, cwd, desktop } = twoUserFiles();
    const chosen = await mcpkit(['discover', 'everything', '--config', desktop, '--format', 'json'], {
      env,
      cwd,
    });
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.equal(JSON.parse(chosen.stdout).serverInfo.name, 'desktop');
    const other = await mcpkit(['call', 'other', 'echo', 'text=hi'], { env, cwd });
    assert.equal(other.code, 0, other.stderr);
    assert.match(other.stderr, /notice: "everything" is defined in 2 config files/);
  });

  test('in two trusted project files: exit 1 listing both', async () => {
    const home = tempHome();
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    const cwd = tempHome();
    const claude = write(join(cwd, '.mcp.json'), { mcpServers: { ex: entry('claude-code') } });
    const vscode = write(join(cwd, '.vscode', 'mcp.json'), { servers: { ex: entry('vscode') } });
    const run = await mcpkit(['tools', 'ex', '--trust-project'], { env, cwd });
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(`"ex" is defined in 2 config files: ${claude}, ${vscode}`.replace(/\./g, '\\.')),
    );
  });

  test("a project entry named like the person's: the person's answers to the name, with a notice (unchanged)", async () => {
    const { env, desktop } = twoUserFiles();
    const cwd = tempHome();
    const project = write(join(cwd, '.vscode', 'mcp.json'), { servers: { other: entry('project') } });
    const run = await mcpkit(['discover', 'other', '--trust-project', '--format', 'json'], { env, cwd });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).serverInfo.name, 'other');
    assert.match(
      run.stderr,
      new RegExp(
        `"other" of ${project} is listed as "other-project": "other" is your server of ${desktop}`.replace(
          /\./g,
          '\\.',
        ),
      ),
    );
  });
});
