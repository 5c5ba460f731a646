/**
 * MCP data types for the stateful revisions (2024-11-05 … 2025-11-25), as the union of their fields.
 * Every object type is open: peers may add fields (and `_meta`), which mcpkit passes through.
 */

/** Open metadata bag carried by most MCP objects. */
export type Meta = { [key: string]: unknown };

/** A progress token chosen by the requester. */
export type ProgressToken = string | number;

/** A display icon (SEP-973). */
export type Icon = {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
};

/** Name, version and display data of a client or server. */
export type Implementation = {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
};

/** Audience, priority and freshness hints on content and resources. */
export type Annotations = {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
};

/** Text content. */
export type TextContent = {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
};

/** Image content (base64 data). */
export type ImageContent = {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
};

/** Audio content (base64 data). */
export type AudioContent = {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
};

/** Text contents of a resource. */
export type TextResourceContents = {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
};

/** Binary contents of a resource (base64). */
export type BlobResourceContents = {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
};

/** Either kind of resource contents. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource embedded in content. */
export type EmbeddedResource = {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
};

/** A resource a server can read. */
export type Resource = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
};

/** A link to a resource, as content. */
export type ResourceLink = Resource & {
  type: 'resource_link';
};

/** Any content block of a tool result or prompt message. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A parameterised resource (RFC 6570 template). */
export type ResourceTemplate = {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
};

/** Behaviour hints of a tool (untrusted unless the server is trusted). */
export type ToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/** A JSON Schema object as carried on the wire. */
export type JsonSchema = { [key: string]: unknown };

/** A tool as listed by `tools/list`. */
export type Tool = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' };
  _meta?: Meta;
};

/** The result of `tools/call`. */
export type CallToolResult = {
  content: ContentBlock[];
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
  _meta?: Meta;
};

/** A prompt argument. */
export type PromptArgument = {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
};

/** A prompt as listed by `prompts/list`. */
export type Prompt = {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
};

/** One message of a prompt. */
export type PromptMessage = {
  role: 'user' | 'assistant';
  content: ContentBlock;
};

/** The result of `prompts/get`. */
export type GetPromptResult = {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
};

/** The result of `resources/read`. */
export type ReadResourceResult = {
  contents: ResourceContents[];
  _meta?: Meta;
};

/** Syslog severity levels, ascending. */
export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

/** What a completion request refers to. */
export type CompletionReference =
  | { type: 'ref/prompt'; name: string }
  | { type: 'ref/resource'; uri: string };

/** The result of `completion/complete`. */
export type CompleteResult = {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
};

/** A root the client exposes. */
export type Root = {
  uri: string;
  name?: string;
  _meta?: Meta;
};

/** Tool use requested by a model during sampling. */
export type ToolUseContent = {
  type: 'tool_use';
  id: string;
  name: string;
  input: { [key: string]: unknown };
  _meta?: Meta;
};

/** The result of a tool use, sent back to the model during sampling. */
export type ToolResultContent = {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
  _meta?: Meta;
};

/** A content block allowed in sampling messages. */
export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

/** One message in a sampling conversation. */
export type SamplingMessage = {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  _meta?: Meta;
};

/** Model preferences for sampling. */
export type ModelPreferences = {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
};

/** Parameters of `sampling/createMessage`. */
export type CreateMessageParams = {
  messages: SamplingMessage[];
  maxTokens: number;
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: { [key: string]: unknown };
  tools?: Tool[];
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Meta;
};

/** The result of `sampling/createMessage`. */
export type CreateMessageResult = {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
  _meta?: Meta;
};

/** Form-mode elicitation parameters. */
export type ElicitFormParams = {
  mode?: 'form';
  message: string;
  requestedSchema: JsonSchema;
  _meta?: Meta;
};

/** URL-mode elicitation parameters (2025-11-25). */
export type ElicitUrlParams = {
  mode: 'url';
  message: string;
  elicitationId: string;
  url: string;
  _meta?: Meta;
};

/** Parameters of `elicitation/create`. */
export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** The result of `elicitation/create`. */
export type ElicitResult = {
  action: 'accept' | 'decline' | 'cancel';
  content?: { [key: string]: string | number | boolean | string[] };
  _meta?: Meta;
};

/** Capabilities a client declares. */
export type ClientCapabilities = {
  experimental?: { [key: string]: object };
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  tasks?: object;
  [key: string]: unknown;
};

/** Capabilities a server declares. */
export type ServerCapabilities = {
  experimental?: { [key: string]: object };
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  tasks?: object;
  [key: string]: unknown;
};

/** The result of `initialize`. */
export type InitializeResult = {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: Meta;
};

/** Parameters of `notifications/progress`. */
export type ProgressParams = {
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  message?: string;
};

/** Parameters of `notifications/message`. */
export type LoggingMessageParams = {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
};
