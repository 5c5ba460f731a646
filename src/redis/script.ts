import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script run by its SHA1 (loaded again when the server forgot it: a restart, SCRIPT FLUSH). */
export type Script = (
  redis: Redis,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

/** Makes a {@link Script} of `lua`: one round trip per call. */
export function script(lua: string): Script {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
