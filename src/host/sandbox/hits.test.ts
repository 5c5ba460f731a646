import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hitIn } from './hits.js';

test("a refused allocation is a memory hit in every Node's words", () => {
  for (const line of [
    'allocating after 896 MB failed: Array buffer allocation failed', // Node 20
    'allocating after 768 MB failed: Failed to allocate memory', // Node 24 (ERR_MEMORY_ALLOCATION_FAILED)
    'mmap: ENOMEM',
  ])
    assert.equal(hitIn(line)?.kind, 'memory', line);
  assert.equal(hitIn('allocated 64 MB'), undefined);
});
