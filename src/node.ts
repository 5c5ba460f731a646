// `mcpkit/node`: serving MCP over HTTP from node:http (Streamable HTTP, with the legacy HTTP+SSE transport beside
// it), serving another server through a transport (`serveRelay`), the adapter that mounts the endpoints in
// Express/Connect-style apps, and the Node-only helpers of the OAuth client (a fetch checking resolved addresses, a
// token file, the loopback redirect receiver).

// The Node-only parts of the OAuth client (mcpkit/auth): a fetch that checks the addresses a name resolves to as
// it connects, a token file and the loopback redirect receiver.
export { type CheckedFetchOptions, checkedFetch } from './auth/client/checked-fetch.js';
export { FileTokenStore } from './auth/client/file-store.js';
export { LoopbackReceiver, type LoopbackReceiverOptions } from './auth/client/loopback.js';
export {
  type JsonlAuditOptions,
  type JsonlAuditSink,
  jsonlAuditSink,
} from './server/guard/audit-file.js';
export {
  createNodeListener,
  type NodeListener,
  type NodeListenerOptions,
  type NodeRoutes,
} from './server/http/adapters/node-http.js';
export {
  type RunningRelay,
  type RunningServer,
  type ServeOptions,
  type ServeRelayOptions,
  serve,
  serveRelay,
} from './server/http/adapters/node-serve.js';
export { loadSkillFolder, type SkillFolderOptions } from './server/skills/folder.js';
