import { McpkitError } from '../../jsonrpc/errors.js';

/** One authorization waiting for its redirect. */
export interface RedirectWaiter {
  resolve: (url: URL) => void;
  reject: (error: Error) => void;
}

/**
 * The authorizations in progress of an app that receives the authorization server's redirect itself, by their
 * `state`: each waits (bounded) for the redirect carrying its state, and a redirect is handed to the one waiting
 * for it. Shared by the loopback receiver and the web inspector's own callback, which differ only in the HTTP
 * server that receives the redirect.
 */
export class RedirectWaiters {
  readonly #waiting = new Map<string, RedirectWaiter>();

  /**
   * @param redirectUri where the redirect arrives (for messages).
   * @param timeoutMs how long each authorization waits for it.
   */
  constructor(
    readonly redirectUri: string,
    readonly timeoutMs: number,
  ) {}

  /**
   * Sends the user to `authorizationUrl` with `open` and resolves with the redirect that comes back carrying that
   * URL's `state` (see {@link take}); rejects after the time limit or when `signal` aborts.
   */
  wait(authorizationUrl: URL, open: (url: URL) => void | Promise<void>, signal?: AbortSignal): Promise<URL> {
    const state = authorizationUrl.searchParams.get('state');
    if (state === null || state === '') {
      return Promise.reject(
        new McpkitError('AUTH_AUTHORIZATION_FAILED', 'The authorization URL carries no state'),
      );
    }
    return new Promise<URL>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        this.#waiting.delete(state);
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new McpkitError(
            'AUTH_AUTHORIZATION_FAILED',
            `No authorization response reached ${this.redirectUri} within ${Math.round(this.timeoutMs / 1000)} s`,
          ),
        );
      }, this.timeoutMs);
      const aborted = () => {
        done();
        reject(new McpkitError('REQUEST_CANCELLED', 'The authorization was cancelled'));
      };
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
      this.#waiting.set(state, {
        resolve: (url) => {
          done();
          resolve(url);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      Promise.resolve()
        .then(() => open(authorizationUrl))
        .catch((e: unknown) => {
          this.#waiting
            .get(state)
            ?.reject(
              new McpkitError(
                'AUTH_AUTHORIZATION_FAILED',
                `Opening the authorization URL failed: ${e instanceof Error ? e.message : String(e)}`,
              ),
            );
        });
    });
  }

  /** The authorization waiting for `state`, if any (its `resolve` hands it the redirect). */
  take(state: string | null): RedirectWaiter | undefined {
    return state === null ? undefined : this.#waiting.get(state);
  }

  /** Fails every authorization still waiting. */
  rejectAll(error: Error): void {
    for (const waiter of [...this.#waiting.values()]) waiter.reject(error);
  }
}
