// The flags of `mcpkit gateway`, apart from its definition and its action, so both import them without a circle.
import type { HostConfigFlags } from '../../shared/host-config.js';

/** The flags of `mcpkit gateway`. */
export interface GatewayFlags extends HostConfigFlags {
  http?: string;
  host?: string;
  /** Serve on a non-loopback --host (off by default: the gateway has no authentication). */
  allowRemote?: boolean;
  /** Serve `search_tools` and `call_tool` instead of every tool. */
  toolSearch?: boolean;
  /** Start every server only when a search or a call needs it. */
  lazy?: boolean;
  /** `--default-approval allow|deny|ask`: the mode of tools no policy names (over `host.defaultApproval`). */
  defaultApproval?: string;
  /** Export spans and metrics over OTLP/HTTP. */
  otel?: boolean;
}
