// Running a command's action: the words after `--` (a stdio server), the exit code of a failure, and errors printed
// as text or as one JSON object on stderr. Heavy modules load only when a command runs.
import type { TargetFlags } from './target.js';

/** The words after the first `--` on the command line: a stdio server's command (undefined when absent). */
export const serverCommand: { words: string[] | undefined } = { words: undefined };

/** Options of every target command, as commander hands them over. */
export interface CommonFlags extends TargetFlags {
  format?: string;
  era?: string;
  logLevel?: string;
  timeout?: string;
  /** `--otel`: export spans and metrics over OTLP/HTTP. */
  otel?: boolean;
}

/**
 * Splits a command's positional words into the target and the rest: with a command after `--` there is no
 * target word (`mcpkit call echo message=hi -- node server.js`), otherwise the first word is the target.
 */
export function splitTarget(words: readonly string[]): { target: string | undefined; rest: string[] } {
  if (serverCommand.words !== undefined) return { target: undefined, rest: [...words] };
  const [target, ...rest] = words;
  return { target, rest };
}

/**
 * Runs `body` and ends the process with its exit code (0 unless it returns another); anything thrown is printed
 * (text, or JSON with `--format json`) and ends it with the code of its class.
 */
export async function execute(
  flags: { format?: string },
  body: () => Promise<number | undefined>,
): Promise<never> {
  let code: number;
  try {
    code = (await body()) ?? 0;
  } catch (e) {
    const { exitCodeOf } = await import('./exit.js');
    const { printError } = await import('./output.js');
    const exit = exitCodeOf(e, undefined);
    printError(e, exit, flags.format === 'json' ? 'json' : 'text');
    code = exit;
  }
  return exitWhenFlushed(code);
}

/** Exits once stdout and stderr have been written out (a piped stdout may still be draining). */
export async function exitWhenFlushed(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) =>
        new Promise<void>((resolve) => {
          if (stream.writableLength === 0) resolve();
          else stream.write('', () => resolve());
        }),
    ),
  );
  process.exit(code);
}
