import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSkillMarkdown } from './frontmatter.js';

test('a SKILL.md header: scalars typed as YAML core, nested maps, lists, quoted and block scalars', () => {
  const { frontmatter, body } = parseSkillMarkdown(
    [
      '---',
      'name: pdf-processing',
      'description: >',
      '  Extract text and',
      '  fill forms.',
      'license: "Apache-2.0"',
      "quote: 'it''s'",
      'metadata:',
      '  version: "2.1"',
      '  count: 3',
      '  beta: true',
      'tags: [a, b]',
      'steps:',
      '  - one',
      '  - two',
      'notes: |',
      '  line 1',
      '  line 2',
      '---',
      '# Body',
    ].join('\n'),
  );
  assert.deepEqual(frontmatter, {
    name: 'pdf-processing',
    description: 'Extract text and fill forms.\n',
    license: 'Apache-2.0',
    quote: "it's",
    metadata: { version: '2.1', count: 3, beta: true },
    tags: ['a', 'b'],
    steps: ['one', 'two'],
    notes: 'line 1\nline 2\n',
  });
  assert.equal(body, '# Body');
});

test('what the subset does not read is refused with its line, never guessed', () => {
  assert.throws(() => parseSkillMarkdown('no header'), /must begin with a "---"/);
  assert.throws(() => parseSkillMarkdown('---\nname: x\n'), /no closing "---"/);
  assert.throws(() => parseSkillMarkdown('---\nname: &a x\n---\n'), /line 2: anchors/);
  assert.throws(
    () => parseSkillMarkdown('---\nname: x\nname: y\n---\n'),
    /line 3: the key "name" appears twice/,
  );
  assert.throws(() => parseSkillMarkdown('---\njust text\n---\n'), /line 2: expected "key: value"/);
  // "__proto__" is a plain key of the result, not its prototype.
  const { frontmatter } = parseSkillMarkdown('---\n__proto__: x\n---\n');
  assert.equal(Object.getPrototypeOf(frontmatter), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(frontmatter, '__proto__')?.value, 'x');
});
