import { McpkitError } from '../../jsonrpc/errors.js';

/** How a mount names what it offers: `<prefix><separator><name>`, and resource URIs with the prefix inserted. */
export interface MountNaming {
  /** A tool's or prompt's name in the parent. */
  name(name: string): string;
  /** A resource URI or URI template in the parent; throws when it cannot be prefixed. */
  uri(uri: string): string;
  /** The mounted server's URI for a URI of the parent that `uri()` made. */
  original(uri: string): string;
  /** Whether URIs change at all. */
  readonly rewritesUris: boolean;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/)?/;

/**
 * The naming of a mount under `prefix`: names joined with `separator`; resource URIs, when `uris` is 'prefix',
 * get the prefix as their first segment after the scheme (`scheme://rest` becomes `scheme://<prefix>/rest`,
 * `scheme:rest` becomes `scheme:<prefix>/rest`). An empty prefix changes nothing.
 */
export function mountNaming(prefix: string, separator: string, uris: 'prefix' | 'keep'): MountNaming {
  if (prefix === '') {
    const same = (s: string) => s;
    return { name: same, uri: same, original: same, rewritesUris: false };
  }
  const head = `${prefix}${separator}`;
  const segment = `${prefix}/`;
  const rewritesUris = uris === 'prefix';
  return {
    name: (name) => head + name,
    uri: (uri) => {
      if (!rewritesUris) return uri;
      const scheme = SCHEME.exec(uri)?.[0];
      if (scheme === undefined)
        throw new McpkitError(
          'INVALID_DEFINITION',
          `Cannot prefix the resource URI ${JSON.stringify(uri)}: it does not start with a literal scheme (mount with uris: 'keep')`,
        );
      return scheme + segment + uri.slice(scheme.length);
    },
    original: (uri) => {
      if (!rewritesUris) return uri;
      const scheme = SCHEME.exec(uri)?.[0];
      if (scheme === undefined || !uri.startsWith(segment, scheme.length)) return uri;
      return scheme + uri.slice(scheme.length + segment.length);
    },
    rewritesUris,
  };
}

/** Checks a mount's prefix and separator: names made from them must stay valid tool names. */
export function checkMountNaming(prefix: unknown, separator: unknown): void {
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9_.-]{0,64}$/.test(prefix))
    throw new McpkitError(
      'INVALID_DEFINITION',
      `Invalid mount prefix ${JSON.stringify(prefix)}: use up to 64 characters of A-Z, a-z, 0-9, "_", "-" and "."`,
    );
  if (typeof separator !== 'string' || !/^[A-Za-z0-9_.-]{0,8}$/.test(separator))
    throw new McpkitError(
      'INVALID_DEFINITION',
      `Invalid mount separator ${JSON.stringify(separator)}: use up to 8 characters of A-Z, a-z, 0-9, "_", "-" and "."`,
    );
}
