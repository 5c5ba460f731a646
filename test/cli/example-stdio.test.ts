// Every command against our example server over stdio (`-- node dist/examples/everything/server.js`).
import { describe } from 'node:test';
import { everyCommand } from './every-command.js';
import { EXAMPLE_STDIO } from './helpers.js';

describe('mcpkit against the example server over stdio', { timeout: 600_000 }, () => {
  everyCommand(() => ({ before: [], after: EXAMPLE_STDIO }), false);
});
