/**
 * Shapes of the MCP results and params a peer sends, checked before they are used: the fields each type
 * requires (and the optional ones the code reads). Declared with their types, so a shape that misses a
 * required field does not compile.
 */
import { McpkitError } from '../jsonrpc/errors.js';
import {
  anything,
  array,
  boolean,
  check,
  either,
  number,
  object,
  oneOf,
  oneOrMany,
  optional,
  record,
  recordOf,
  type Shape,
  string,
  variant,
} from './shape.js';
import type {
  CallToolResult,
  CompleteResult,
  ContentBlock,
  CreateMessageParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitResult,
  ElicitUrlParams,
  GetPromptResult,
  InitializeResult,
  LoggingMessageParams,
  ReadResourceResult,
  ResourceContents,
  Root,
  SamplingContent,
} from './types.js';

const role = oneOf('user', 'assistant');

/** Text or blob contents of a resource. */
export const resourceContents: Shape<ResourceContents> = either(
  object({ uri: string, text: string }),
  object({ uri: string, blob: string }),
  'resource contents: a string "uri" with a string "text" or "blob"',
);

const media = object({ data: string, mimeType: string });

/** A content block of a tool result or prompt message. */
export const contentBlock: Shape<ContentBlock> = variant('type', {
  text: object({ text: string }),
  image: media,
  audio: media,
  resource_link: object({ uri: string, name: string }),
  resource: object({ resource: resourceContents }),
});

/** A content block of a sampling message. */
export const samplingContent: Shape<SamplingContent> = variant('type', {
  text: object({ text: string }),
  image: media,
  audio: media,
  tool_use: object({ id: string, name: string, input: record }),
  tool_result: object({ toolUseId: string, content: array(contentBlock) }),
});

/** The result of `tools/call` (its `structuredContent` is checked against the tool's output schema, not here). */
export const callToolResult: Shape<CallToolResult> = object({
  content: array(contentBlock),
  isError: optional(boolean),
});

/** The result of `resources/read`. */
export const readResourceResult: Shape<ReadResourceResult> = object({ contents: array(resourceContents) });

/** The result of `prompts/get`. */
export const getPromptResult: Shape<GetPromptResult> = object({
  description: optional(string),
  messages: array(object({ role, content: contentBlock })),
});

/** The result of `completion/complete`. */
export const completeResult: Shape<CompleteResult> = object({
  completion: object({ values: array(string), total: optional(number), hasMore: optional(boolean) }),
});

/** The result of `initialize`. */
export const initializeResult: Shape<InitializeResult> = object({
  protocolVersion: string,
  capabilities: record,
  serverInfo: object({ name: string, version: string }),
  instructions: optional(string),
});

/** The params of `notifications/message`. */
export const loggingMessageParams: Shape<LoggingMessageParams> = object({
  level: oneOf('debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'),
  logger: optional(string),
  data: anything,
});

/** The params of `sampling/createMessage`. */
export const createMessageParams: Shape<CreateMessageParams> = object({
  messages: array(object({ role, content: oneOrMany(samplingContent) })),
  maxTokens: number,
  systemPrompt: optional(string),
  includeContext: optional(oneOf('none', 'thisServer', 'allServers')),
  tools: optional(array(object({ name: string, inputSchema: record }))),
  toolChoice: optional(object({ mode: optional(oneOf('auto', 'required', 'none')) })),
});

/** The result of `sampling/createMessage`. */
export const createMessageResult: Shape<CreateMessageResult> = object({
  role,
  content: oneOrMany(samplingContent),
  model: string,
  stopReason: optional(string),
});

/** The params of a form-mode `elicitation/create`. */
export const elicitFormParams: Shape<ElicitFormParams> = object({
  mode: optional(oneOf('form')),
  message: string,
  requestedSchema: record,
});

/** The params of a URL-mode `elicitation/create`. */
export const elicitUrlParams: Shape<ElicitUrlParams> = object({
  mode: oneOf('url'),
  message: string,
  elicitationId: string,
  url: string,
});

const elicitValue = either(
  either(string, number, 'a string or number'),
  either(boolean, array(string), 'a boolean or array of strings'),
  'a string, number, boolean or array of strings',
);

/** The result of `elicitation/create` (an accepted form answer is then checked against its schema). */
export const elicitResult: Shape<ElicitResult> = object({
  action: oneOf('accept', 'decline', 'cancel'),
  content: optional(recordOf(elicitValue)),
});

/** The result of `roots/list`. */
export const listRootsResult: Shape<{ roots: Root[] }> = object({
  roots: array(object({ uri: string, name: optional(string) })),
});

/**
 * `value` when it has the shape of `method`'s result; otherwise McpkitError INVALID_RESULT saying what is
 * wrong (a malformed answer from the peer is the peer's fault, reported as such, never a crash later).
 */
export function checkResult<T>(
  shape: Shape<T>,
  value: unknown,
  method: string,
  from: 'client' | 'server',
): T {
  return check(
    shape,
    value,
    (problem) =>
      new McpkitError('INVALID_RESULT', `The ${from}'s ${method} result is malformed: result${problem}`),
  );
}
