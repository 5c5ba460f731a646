// The flags of `mcpkit config`, apart from its definition and its action, so both import them without a circle.

/** The flags of `mcpkit config list|show`. */
export interface ConfigFlags {
  config?: string;
  format?: string;
  /** `--trust-project`: show the project files as this run would take them. */
  trustProject?: boolean;
}
