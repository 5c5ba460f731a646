import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeFileAtomic } from './write.js';

const folder = () => mkdtempSync(join(tmpdir(), 'mcpkit-write-'));

test('an existing file keeps its exact mode, whatever the umask; so does its backup', async () => {
  const dir = folder();
  const file = join(dir, 'config.json');
  writeFileSync(file, 'old');
  const previous = process.umask(0o022);
  try {
    // chmod after the write: the umask would have cut the mode given to writeFileSync.
    chmodSync(file, 0o666);
    const backup = await writeFileAtomic(file, 'new', { backup: true });
    assert.equal(backup, `${file}.bak`);
    assert.equal(statSync(file).mode & 0o777, 0o666);
    assert.equal(statSync(`${file}.bak`).mode & 0o777, 0o666);
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), 'old');
  } finally {
    process.umask(previous);
  }
  assert.deepEqual(readdirSync(dir).sort(), ['config.json', 'config.json.bak'], 'no temporary file left');
});

test('a link at the backup name is replaced, its target untouched; a link as the file is written at its target', async () => {
  const dir = folder();
  const precious = join(dir, 'precious');
  writeFileSync(precious, 'keep', { mode: 0o600 });
  const real = join(dir, 'real.json');
  writeFileSync(real, 'old');
  const file = join(dir, 'config.json');
  symlinkSync(real, file);
  symlinkSync(precious, `${file}.bak`);
  await writeFileAtomic(file, 'new', { backup: true });
  assert.equal(readFileSync(precious, 'utf8'), 'keep');
  assert.equal(lstatSync(`${file}.bak`).isSymbolicLink(), false);
  assert.equal(readFileSync(`${file}.bak`, 'utf8'), 'old');
  assert.equal(lstatSync(file).isSymbolicLink(), true);
  assert.equal(readFileSync(real, 'utf8'), 'new');
});

test('a link leading nowhere is refused, and nothing is created at its target', async () => {
  const dir = folder();
  const file = join(dir, 'config.json');
  symlinkSync(join(dir, 'missing.json'), file);
  await assert.rejects(writeFileAtomic(file, 'new'), {
    code: 'CONFIG_INVALID',
    message: /config\.json is a symbolic link to .*missing\.json, which leads to no file/,
  });
  assert.deepEqual(readdirSync(dir), ['config.json']);
});
