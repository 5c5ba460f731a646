// The flags of `mcpkit auth`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit auth login`. */
export interface LoginFlags extends CommonFlags {
  browser?: boolean;
  scope?: string;
  callbackPort?: string;
}
