import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverEnvironment } from './environment.js';

test('a spawned server gets the allow-list and the config, loader variables only when named', () => {
  const source = { PATH: '/bin', HOME: '/h', SECRET: 's', LD_PRELOAD: 'evil.so', EXTRA: 'e' };
  const env = serverEnvironment(
    { A: '1', NODE_OPTIONS: '--x', LD_PRELOAD: 'from-file.so' },
    ['A', 'NODE_OPTIONS'],
    ['EXTRA', 'LD_PRELOAD'],
    source,
  );
  assert.equal(env.A, '1');
  assert.equal(env.NODE_OPTIONS, '--x');
  assert.equal(env.EXTRA, 'e');
  assert.equal(env.LD_PRELOAD, undefined, 'from an envFile or inherit, a loader variable is dropped');
  assert.equal(env.SECRET, undefined);
  const named = serverEnvironment({ LD_PRELOAD: 'asked.so' }, ['LD_PRELOAD']);
  assert.equal(named.LD_PRELOAD, 'asked.so');
});
