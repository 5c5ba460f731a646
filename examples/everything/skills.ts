import type { McpServer } from '../../src/index.js';

const SKILL_MD = `---
name: add-numbers
description: How to add numbers with this server's tools, and check the answer.
license: MIT
---
# Adding numbers

To add two numbers, call the \`add\` tool with \`a\` and \`b\`.
For a long list, add them two at a time; the worked example is in \`examples/long-list.md\`.
`;

const LONG_LIST = `# A long list

1 + 2 + 3 + 4: call add(1, 2) = 3, add(3, 3) = 6, add(6, 4) = 10.
`;

/** Publishes the example's one skill (the Skills extension): `skill://add-numbers/SKILL.md` and one supporting file. */
export function registerSkills(server: McpServer): void {
  server.skill({ files: { 'SKILL.md': SKILL_MD, 'examples/long-list.md': LONG_LIST } });
}
