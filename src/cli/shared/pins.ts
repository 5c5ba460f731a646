// Where the mcpkit commands keep the pins of the host's tool definitions: `tool-pins.json` in the user's config folder
// (0600, beside the token file), so a tool that changes between runs is asked about again; and the servers' last known
// tool lists (`tool-lists/` in the user's cache folder), so searches need not start every server.
import { join } from 'node:path';
import { cacheDir, configDir } from '../../host/config/config-dir.js';
import { FilePinStore } from '../../host/pin-store.js';
import { FileToolListCache } from '../../host/tool-list-cache.js';

/** The tool pins of `mcpkit chat`, `gateway` and `inspect`. */
export function toolPinStore(): FilePinStore {
  return new FilePinStore(join(configDir(), 'tool-pins.json'));
}

/** The tool-list cache of `mcpkit chat` and `gateway`. */
export function toolListCache(): FileToolListCache {
  return new FileToolListCache(join(cacheDir(), 'tool-lists'));
}
