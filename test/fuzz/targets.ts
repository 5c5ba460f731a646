import { envelopeAnyText, envelopeValid } from './envelope-targets.js';
import { ndjsonBytes, ndjsonLines, sseAnyText, sseRoundTrip } from './framing-targets.js';
import { httpHandler } from './http-target.js';
import { httpSocket } from './socket-target.js';
import type { FuzzTarget } from './target.js';
import { uriTemplateAny, uriTemplateRoundTrip } from './uri-template-targets.js';

/** Every fuzz target, in the order `npm run fuzz` runs them. */
export const TARGETS: readonly FuzzTarget[] = [
  ndjsonLines,
  ndjsonBytes,
  sseRoundTrip,
  sseAnyText,
  envelopeAnyText,
  envelopeValid,
  uriTemplateAny,
  uriTemplateRoundTrip,
  httpHandler,
  httpSocket,
] as readonly FuzzTarget[];

/** Inputs that once failed, by target name: replayed by the CI slice and before every full run. */
export const REGRESSIONS_FILE = new URL('../../../test/fuzz/regressions.json', import.meta.url);
