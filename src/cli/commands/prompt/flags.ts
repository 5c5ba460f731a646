// The flags of `mcpkit prompt`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit prompt`, as commander hands them over. */
export interface PromptFlags extends CommonFlags {
  saveMedia?: string;
}
