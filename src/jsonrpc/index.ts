export { ErrorCode, JsonRpcError, McpkitError, type McpkitErrorCode } from './errors.js';
export { classify, encodeMessage, errorResponse, type Parsed, parseMessage, preEncode } from './parse.js';
export * from './types.js';
