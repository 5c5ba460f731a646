// The flags of `mcpkit complete`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit complete`, as commander hands them over. */
export interface CompleteFlags extends CommonFlags {
  prompt?: string;
  template?: string;
  context?: string[];
}
