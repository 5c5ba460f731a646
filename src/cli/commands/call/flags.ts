// The flags of `mcpkit call`, apart from its definition and its action, so both import them without a circle.
import type { CommonFlags } from '../../shared/execute.js';

/** The flags of `mcpkit call`, as commander hands them over. */
export interface CallFlags extends CommonFlags {
  argsJson?: string;
  saveMedia?: string;
  /** `--allow-unknown-args`: names the tool's schema does not list are sent instead of refused. */
  allowUnknownArgs?: boolean;
}
