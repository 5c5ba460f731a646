import { errorMessage } from '../../jsonrpc/errors.js';
import { warmJsonSchema } from '../../schema/json-schema.js';

let warmed = false;

/**
 * Readies JSON Schema validation in the background once a client is in (its `initialize` or `server/discover`), so
 * the first call does not wait for it; a process without JSON Schema validators (zod and the like) loads nothing.
 */
export function warmUpValidation(): void {
  if (warmed) return;
  warmed = true;
  // After the reply is written: the warm-up must not delay the handshake itself.
  const timer = setTimeout(() => {
    warmJsonSchema().catch((e: unknown) =>
      console.error(`mcpkit: could not load the JSON Schema validator: ${errorMessage(e)}`),
    );
  }, 0);
  (timer as { unref?: () => void }).unref?.();
}
