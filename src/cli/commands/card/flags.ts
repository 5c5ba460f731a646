// The flags of `mcpkit card`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit card`, as commander hands them over. */
export interface CardFlags extends CommonFlags {
  strict?: boolean;
}
