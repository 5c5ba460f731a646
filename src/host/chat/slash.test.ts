import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSlashCommand, promptArguments } from './slash.js';

test('slash commands: name, key=value and quoted words', () => {
  assert.deepEqual(parseSlashCommand('/srv__greet name=Ada topic="two words" extra'), {
    name: 'srv__greet',
    named: { name: 'Ada', topic: 'two words' },
    positional: ['extra'],
  });
  assert.deepEqual(parseSlashCommand("  /p 'a=b c'  "), { name: 'p', named: {}, positional: ['a=b c'] });
  assert.equal(parseSlashCommand('not a command'), undefined);
  assert.equal(parseSlashCommand('/'), undefined);
  assert.equal(parseSlashCommand('//comment'), undefined);
  assert.deepEqual(parseSlashCommand('/p "unterminated'), {
    name: 'p',
    named: {},
    positional: ['unterminated'],
  });
});

test('prompt arguments: named, then positional in declared order, the rest joined into the last', () => {
  const prompt = {
    name: 'p',
    arguments: [{ name: 'a', required: true }, { name: 'b', required: true }, { name: 'c' }],
  };
  const parse = (line: string) => promptArguments(prompt, parseSlashCommand(line) ?? assert.fail('parsed'));
  assert.deepEqual(parse('/p b=2 one three four'), {
    args: { a: 'one', b: '2', c: 'three four' },
    missing: [],
    unknown: [],
  });
  assert.deepEqual(parse('/p a=1'), { args: { a: '1' }, missing: ['b'], unknown: [] });
  assert.deepEqual(parse('/p a=1 b=2 z=9'), { args: { a: '1', b: '2' }, missing: [], unknown: ['z'] });
  assert.deepEqual(promptArguments({ name: 'q' }, { name: 'q', named: {}, positional: ['x'] }), {
    args: {},
    missing: [],
    unknown: ['x'],
  });
});
