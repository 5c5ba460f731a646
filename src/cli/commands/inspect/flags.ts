// The flags of `mcpkit inspect`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit inspect` beyond a target command's. */
export interface InspectFlags extends CommonFlags {
  port?: string;
  /** False with `--no-open`. */
  open?: boolean;
}
