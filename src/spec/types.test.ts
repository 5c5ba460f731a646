// Compile-time tests: this file fails `tsc` if an MCP data type stops being assignable to JsonObject (an
// `interface` has no implicit index signature, which forced `as unknown as` casts wherever results were sent).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject } from '../jsonrpc/types.js';
import type { CacheHint, SubscriptionFilter } from './modern.js';
import type * as T from './types.js';

type Sendable<X extends JsonObject> = X;

export type Checked = [
  Sendable<T.Icon>,
  Sendable<T.Implementation>,
  Sendable<T.Annotations>,
  Sendable<T.ContentBlock>,
  Sendable<T.ResourceContents>,
  Sendable<T.Resource>,
  Sendable<T.ResourceTemplate>,
  Sendable<T.ToolAnnotations>,
  Sendable<T.Tool>,
  Sendable<T.CallToolResult>,
  Sendable<T.Prompt>,
  Sendable<T.PromptArgument>,
  Sendable<T.PromptMessage>,
  Sendable<T.GetPromptResult>,
  Sendable<T.ReadResourceResult>,
  Sendable<T.CompleteResult>,
  Sendable<T.Root>,
  Sendable<T.SamplingContent>,
  Sendable<T.SamplingMessage>,
  Sendable<T.ModelPreferences>,
  Sendable<T.CreateMessageParams>,
  Sendable<T.CreateMessageResult>,
  Sendable<T.ElicitParams>,
  Sendable<T.ElicitResult>,
  Sendable<T.ClientCapabilities>,
  Sendable<T.ServerCapabilities>,
  Sendable<T.InitializeResult>,
  Sendable<T.ProgressParams>,
  Sendable<T.LoggingMessageParams>,
  Sendable<CacheHint>,
  Sendable<SubscriptionFilter>,
];

test('MCP data types are JSON objects (checked at compile time)', () => {
  const result: T.CallToolResult = { content: [{ type: 'text', text: 'hi' }] };
  const sent: JsonObject = result;
  assert.equal(sent, result);
});
