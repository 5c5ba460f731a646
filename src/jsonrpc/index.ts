export { ErrorCode, JsonRpcError, McpkitError, type McpkitErrorCode } from './errors.js';
export { classify, encodeMessage, errorResponse, type Parsed, parseMessage } from './parse.js';
export * from './types.js';
