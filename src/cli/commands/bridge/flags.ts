// The flags of `mcpkit bridge`, apart from its definition and its action, so both import them without a circle.

/** The flags of `mcpkit bridge`. */
export interface BridgeFlags {
  fromStdio?: boolean;
  fromUrl?: string;
  toStdio?: boolean;
  http?: string;
  shared?: boolean;
  cwd?: string;
  env?: string[];
  header?: string[];
  headerEnv?: string[];
  startupTimeout?: string;
  format?: string;
}
