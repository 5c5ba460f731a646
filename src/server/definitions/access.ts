import type { AuthInfo } from '../handler/auth.js';
import type { ListView } from './registry.js';

/** What kind of registered thing an option names. */
export type NamedKind = 'tool' | 'prompt' | 'resource' | 'template';

/** What the protocol methods ask of access rules: a server's own (`AccessPolicy`) or with its mounts' too. */
export interface Access {
  /** Whether some rule may hide entries of this kind (none: lists are not filtered). */
  governs(kind: NamedKind): boolean;
  allows(kind: NamedKind, name: string, auth: AuthInfo | undefined, template?: string): boolean;
  /** Refuses (`Forbidden`) a use the rules deny. */
  check(kind: NamedKind, name: string, auth: AuthInfo | undefined, template?: string): void;
  view(kind: NamedKind, auth: AuthInfo | undefined): ListView | undefined;
}
