import type { Transport } from '../protocol/transport.js';
import type { LoggingLevel } from '../spec/types.js';
import { ServerSession, type SessionHost } from './dispatch/session.js';

/** The sessions connected to one server definition: added once their transport has started, gone once closed. */
export class SessionSet {
  readonly #all = new Set<ServerSession>();

  /** The live sessions (a view: it changes as sessions come and go). */
  get all(): ReadonlySet<ServerSession> {
    return this.#all;
  }

  /** Starts a session over `transport`, answered by `host`; it is forgotten again if the start fails. */
  async connect(
    transport: Transport,
    host: SessionHost,
    defaultLogLevel: LoggingLevel,
  ): Promise<ServerSession> {
    const session = new ServerSession(transport, host, defaultLogLevel);
    this.#all.add(session);
    try {
      await session.peer.start();
    } catch (e) {
      this.#all.delete(session);
      throw e;
    }
    return session;
  }

  /** Forgets a closed session. */
  delete(session: ServerSession): void {
    this.#all.delete(session);
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#all].map((s) => s.close()));
  }
}
