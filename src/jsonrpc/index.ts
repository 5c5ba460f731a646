export { ErrorCode, JsonRpcError, McpkitError, type McpkitErrorCode } from './errors.js';
export {
  classify,
  type EncodedParts,
  encodeMessage,
  encodeMessageParts,
  errorResponse,
  type Parsed,
  parseMessage,
  preEncode,
} from './parse.js';
export * from './types.js';
