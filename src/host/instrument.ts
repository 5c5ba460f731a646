/**
 * The hooks a host runs its work through, for tracing and metrics (`mcpkit/otel`'s `hostInstrumentation` fills
 * them): each gets what is about to happen and a function doing it, and returns what that function returns. None set:
 * the host calls nothing and pays one `undefined` check per call.
 */
import type { Transport } from '../protocol/transport.js';
import type { CallToolResult } from '../spec/types.js';
import type { ModelResponse } from './model/types.js';

/** A routed call of a tool: its server, its name there, and its qualified name. */
export interface InstrumentedCall {
  readonly server: string;
  readonly tool: string;
  readonly name: string;
}

/** One model request of the model loop. */
export interface InstrumentedModelRequest {
  readonly provider: string;
  readonly model: string;
  readonly maxTokens: number;
  readonly temperature?: number | undefined;
}

/** One tool call the model loop runs for the model. */
export interface InstrumentedToolUse {
  readonly name: string;
  /** The model's id of the call. */
  readonly id: string;
}

/** Hooks around a host's connections, routed calls, approval waits and its model loop. Each must call `run` once. */
export interface HostInstrumentation {
  /** Each server connection's transport, every time one is opened: a wrapper that sees every message. */
  transport?(server: string, transport: Transport): Transport;
  /** Around each routed tool call (approval, then the server's answer). */
  call?(call: InstrumentedCall, run: () => Promise<CallToolResult>): Promise<CallToolResult>;
  /** Around each wait for an approval; `run` resolves to how it was allowed, or to the denial. */
  approval?<T>(call: InstrumentedCall & { readonly mode: string }, run: () => Promise<T>): Promise<T>;
  /** Around each model request of a chat. */
  model?(request: InstrumentedModelRequest, run: () => Promise<ModelResponse>): Promise<ModelResponse>;
  /** Around each tool call a chat runs for the model. */
  tool?(use: InstrumentedToolUse, run: () => Promise<CallToolResult>): Promise<CallToolResult>;
}
