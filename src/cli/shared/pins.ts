// Where the mcpkit commands keep the pins of the host's tool definitions: `tool-pins.json` in the user's config folder
// (0600, beside the token file), so a tool that changes between runs is asked about again.
import { join } from 'node:path';
import { configDir } from '../../host/config/config-dir.js';
import { FilePinStore } from '../../host/pin-store.js';

/** The tool pins of `mcpkit chat`, `gateway` and `inspect`. */
export function toolPinStore(): FilePinStore {
  return new FilePinStore(join(configDir(), 'tool-pins.json'));
}
