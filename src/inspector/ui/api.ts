// The page's two channels to the inspector server: actions (POST /api/<name>, JSON) and the event stream (SSE).
// The token travels in an HttpOnly cookie the page cannot read.
import type { InspectorEvent, Snapshot } from '../session.js';

/** An action's failure as the server describes it. */
export class ActionError extends Error {
  constructor(
    message: string,
    readonly code?: string | number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Runs action `name` on the inspector server. */
export async function act<T = unknown>(name: string, body: object = {}): Promise<T> {
  const response = await fetch(`/api/${name}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  const reply = (await response
    .json()
    .catch(() => ({ ok: false, error: { message: response.statusText } }))) as
    | { ok: true; result: T }
    | { ok: false; error: { message: string; code?: string | number; data?: unknown } };
  if (!reply.ok) throw new ActionError(reply.error.message, reply.error.code, reply.error.data);
  return reply.result;
}

/** Follows the event stream: `onsnapshot` at each (re)connection, then `onevent`. Returns a function to stop. */
export function follow(
  onsnapshot: (snapshot: Snapshot) => void,
  onevent: (event: InspectorEvent) => void,
  onlive: (live: boolean) => void,
): () => void {
  const source = new EventSource('/events');
  source.addEventListener('snapshot', (e) => {
    onlive(true);
    onsnapshot(JSON.parse((e as MessageEvent<string>).data) as Snapshot);
  });
  source.onmessage = (e: MessageEvent<string>) => onevent(JSON.parse(e.data) as InspectorEvent);
  source.onerror = () => onlive(false);
  return () => source.close();
}

/** A fresh id for a tool call the page starts. */
export function newCallId(): string {
  return `call-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
