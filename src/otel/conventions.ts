/**
 * The names of the OpenTelemetry semantic conventions for MCP (`docs/gen-ai/mcp.md`) and for GenAI spans
 * (`docs/gen-ai/gen-ai-spans.md`) that mcpkit emits, in one place.
 */

/** The instrumentation scope of every tracer and meter mcpkit makes. */
export const SCOPE = 'mcpkit';

/** Attribute keys. */
export const ATTR = {
  method: 'mcp.method.name',
  session: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  statusCode: 'rpc.response.status_code',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  maxTokens: 'gen_ai.request.max_tokens',
  temperature: 'gen_ai.request.temperature',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  clientAddress: 'client.address',
  errorType: 'error.type',
} as const;

/** Metric names (histograms, seconds). */
export const METRIC = {
  clientOperation: 'mcp.client.operation.duration',
  serverOperation: 'mcp.server.operation.duration',
  clientSession: 'mcp.client.session.duration',
  serverSession: 'mcp.server.session.duration',
} as const;

/** The conventions' advised bucket boundaries of every MCP duration histogram, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** The attributes a duration metric keeps of a span's (the low-cardinality ones). */
export const METRIC_ATTRIBUTES: readonly string[] = [
  ATTR.method,
  ATTR.errorType,
  ATTR.toolName,
  ATTR.promptName,
  ATTR.statusCode,
  ATTR.operation,
  ATTR.protocolVersion,
  ATTR.networkTransport,
  ATTR.networkProtocol,
];
