// The flags of `mcpkit chat`, apart from its definition and its action, so both import them without a circle.
import type { HostConfigFlags } from '../../shared/host-config.js';

/** The flags of `mcpkit chat`. */
export interface ChatFlags extends HostConfigFlags {
  model?: string;
  system?: string;
  maxTokens?: string;
  format?: string;
  /** `search`, `auto` or `provider` (true: `search`). */
  toolSearch?: string | boolean;
  lazy?: boolean;
  /** Export spans and metrics over OTLP/HTTP. */
  otel?: boolean;
}
