import { McpkitError } from '../../jsonrpc/errors.js';

/** Where in a config file a problem is: the file, the server (when inside one) and the field path. */
export interface ConfigPlace {
  file: string;
  server?: string | undefined;
  field?: string | undefined;
}

/**
 * A config file that cannot be used: a syntax error, an unknown field, a missing command, an unset variable.
 * The message names the file, the server and the field; they are also kept as properties.
 */
export class ConfigError extends McpkitError {
  readonly file: string;
  readonly server: string | undefined;
  readonly field: string | undefined;

  constructor(place: ConfigPlace, problem: string, options?: { cause?: unknown }) {
    super('CONFIG_INVALID', `${describePlace(place)}: ${problem}`, options);
    this.name = 'ConfigError';
    this.file = place.file;
    this.server = place.server;
    this.field = place.field;
  }
}

function describePlace(place: ConfigPlace): string {
  let text = place.file;
  if (place.server !== undefined) text += `, server "${place.server}"`;
  if (place.field !== undefined) text += `, field "${place.field}"`;
  return text;
}
