import { defaultEnvironment } from '../transport/stdio-client.js';

/**
 * Variables that change how programs load or start (preloaded libraries, interpreter options): a spawned server
 * gets none of them unless its config's `env` names them explicitly. A value from an `envFile` or from
 * `inherit` is not enough.
 */
export const DENIED_ENV_VARS: readonly string[] = [
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'DYLD_FRAMEWORK_PATH',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_REPL_EXTERNAL_MODULE',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'RUBYOPT',
  'RUBYLIB',
  'BASH_ENV',
  'ENV',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
];

const DENIED = new Set(DENIED_ENV_VARS);

/**
 * The complete environment of a spawned server: the stdio transport's allow-list, the host's `inherit` names
 * (taken from `source`), then the config's variables; deny-listed names survive only when in `named`.
 */
export function serverEnvironment(
  configured: Readonly<Record<string, string>>,
  named: readonly string[],
  inherit: readonly string[] = [],
  source: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const env = defaultEnvironment();
  for (const key of inherit) {
    const value = source[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  Object.assign(env, configured);
  const allowed = new Set(named);
  for (const key of Object.keys(env)) if (DENIED.has(key) && !allowed.has(key)) delete env[key];
  return env;
}
