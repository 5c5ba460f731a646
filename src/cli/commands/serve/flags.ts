// The flags of `mcpkit serve`, apart from its definition and its action, so both import them without a circle.

/** The flags of `mcpkit serve`. */
export interface ServeFlags {
  http?: string;
  watch?: boolean;
  export?: string;
  format?: string;
  /** Export spans and metrics over OTLP/HTTP. */
  otel?: boolean;
}
