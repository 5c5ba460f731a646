import { isJsonObject } from '../jsonrpc/types.js';

type Obj = { [key: string]: unknown };

/**
 * What a revision defines of a capabilities object: a key maps to `true` (kept as it is: an open object such as
 * `experimental` or `logging`, or a plain value) or to the shape of its own keys (only those are kept).
 */
export type CapabilityShape = { readonly [key: string]: CapabilityShape | true };

const OPEN = true;
const LISTS = {
  prompts: { listChanged: OPEN },
  resources: { subscribe: OPEN, listChanged: OPEN },
  tools: { listChanged: OPEN },
} as const;

/** `ServerCapabilities` of each revision, from its schema.json. */
export const SERVER_CAPABILITIES_2024_11_05: CapabilityShape = {
  experimental: OPEN,
  logging: OPEN,
  ...LISTS,
};
/** 2025-03-26 added `completions` (2025-06-18 has the same). */
export const SERVER_CAPABILITIES_2025_03_26: CapabilityShape = {
  ...SERVER_CAPABILITIES_2024_11_05,
  completions: OPEN,
};
/** 2025-11-25 added `tasks`. */
export const SERVER_CAPABILITIES_2025_11_25: CapabilityShape = {
  ...SERVER_CAPABILITIES_2025_03_26,
  tasks: { cancel: OPEN, list: OPEN, requests: { tools: { call: OPEN } } },
};
/** 2026-07-28 moved tasks to an extension and added `extensions`. */
export const SERVER_CAPABILITIES_2026_07_28: CapabilityShape = {
  ...SERVER_CAPABILITIES_2025_03_26,
  extensions: OPEN,
};

/**
 * `capabilities` with only what `shape` defines: other keys (user-declared `extensions` before 2026-07-28, a
 * capability a revision does not have, unknown fields inside a known one) are dropped. Objects are copied only
 * where something changes; a key is only ever copied when the shape names it (so `__proto__` never is).
 */
export function fitCapabilities(capabilities: Obj, shape: CapabilityShape): Obj {
  let out: Obj | undefined;
  const keys = Object.keys(capabilities);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const value = capabilities[key];
    const rule = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const fitted =
      rule === undefined
        ? DROPPED
        : rule === OPEN || !isJsonObject(value)
          ? value
          : fitCapabilities(value, rule);
    if (fitted === value) {
      if (out) out[key] = value;
      continue;
    }
    if (!out) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j] as string] = capabilities[keys[j] as string];
    }
    if (fitted !== DROPPED) out[key] = fitted;
  }
  return out ?? capabilities;
}

const DROPPED = Symbol('dropped');
