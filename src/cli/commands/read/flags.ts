// The flags of `mcpkit read`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit read`, as commander hands them over. */
export interface ReadFlags extends CommonFlags {
  saveMedia?: string;
}
