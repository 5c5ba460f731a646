// The flags of `mcpkit skills`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit skills`, as commander hands them over. */
export interface SkillsFlags extends CommonFlags {
  file?: string;
}
