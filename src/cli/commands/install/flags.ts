// The flags of `mcpkit install`, apart from its definition and its action, so both import them without a circle.

/** The flags of `mcpkit install`. */
export interface InstallFlags {
  scope?: string;
  force?: boolean;
  env?: string[];
  header?: string[];
  format?: string;
}
