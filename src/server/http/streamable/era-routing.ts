import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../../jsonrpc/types.js';
import { claimsModern, isModernRevision } from '../../../spec/modern.js';
import { isStatefulRevision } from '../../../spec/versions.js';
import { httpError } from '../core/errors.js';
import type { HttpReply, HttpRequestLike } from '../core/http.js';
import type { PostBody } from '../core/post-body.js';

/**
 * The stateless-revision (2026-07-28) request a POST carries, if its first message claims that revision
 * through its `_meta` envelope (`initialize` never does).
 */
export function modernRequest(body: PostBody): JsonRpcRequest | JsonRpcNotification | undefined {
  const first = body.messages[0];
  if (body.init || first === undefined || !('method' in first) || !claimsModern(first.params))
    return undefined;
  return first;
}

/** The stateless revision sends one message per POST. */
export function refuseModernBatch(): HttpReply {
  return httpError(400, 'Invalid Request: protocol revision 2026-07-28 sends one message per POST');
}

/**
 * The version checks of a stateful-era POST (`version`: its MCP-Protocol-Version header): a header naming
 * the stateless revision on a body without its envelope is -32602; an unknown revision is 400.
 * `initialize` is exempt (it negotiates the revision).
 */
export function refuseStatefulVersion(version: string | undefined, body: PostBody): HttpReply | undefined {
  if (body.init || version === undefined) return undefined;
  if (isModernRevision(version) && !body.batch) {
    // The header claims the stateless revision, the body does not carry its `_meta` envelope: a malformed request.
    const first = body.messages[0];
    const id = first !== undefined && 'id' in first && first.id !== undefined ? first.id : null;
    return httpError(
      400,
      `Invalid params: MCP-Protocol-Version ${version} needs the _meta protocol fields in the request`,
      ErrorCode.InvalidParams,
      id,
    );
  }
  if (!isStatefulRevision(version)) return unsupported(version);
  return undefined;
}

/** GET and DELETE: a present version header must name a revision this server speaks. */
export function refuseUnknownVersion(req: HttpRequestLike): HttpReply | undefined {
  const v = req.header('mcp-protocol-version');
  if (v === undefined || isStatefulRevision(v) || isModernRevision(v)) return undefined;
  return unsupported(v);
}

function unsupported(version: string): HttpReply {
  return httpError(400, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)}`);
}
