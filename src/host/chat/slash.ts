import type { Prompt } from '../../spec/types.js';

/** A `/name arg=value …` line, split. */
export interface SlashCommand {
  name: string;
  /** `key=value` words (quotes allowed: `key="two words"`). */
  named: Record<string, string>;
  /** The other words, in order. */
  positional: string[];
}

/**
 * Splits a slash command: `/name`, then words that are `key=value` or bare, double or single quotes keeping
 * spaces (`topic="a b"`, `'a b'`). Undefined when the line is not a slash command.
 */
export function parseSlashCommand(line: string): SlashCommand | undefined {
  const m = /^\/([^\s/]\S*)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) return undefined;
  const named: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of words(m[2] ?? '')) {
    const eq = /^([A-Za-z_][\w.-]*)=([\s\S]*)$/.exec(word.raw);
    if (eq && !word.quotedKey) named[eq[1] as string] = eq[2] as string;
    else positional.push(word.raw);
  }
  return { name: m[1] as string, named, positional };
}

/**
 * A prompt's arguments from a command: the named ones, then bare words filling the declared arguments not yet named,
 * in their order. Returns the missing required arguments too (an app tells the person, and does not call).
 */
export function promptArguments(
  prompt: Prompt,
  command: SlashCommand,
): { args: Record<string, string>; missing: string[]; unknown: string[] } {
  const declared = prompt.arguments ?? [];
  const args: Record<string, string> = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(command.named)) {
    if (declared.some((a) => a.name === key)) args[key] = value;
    else unknown.push(key);
  }
  const free = declared.filter((a) => args[a.name] === undefined);
  const rest = [...command.positional];
  for (const a of free) {
    const value = rest.shift();
    if (value === undefined) break;
    args[a.name] = value;
  }
  // Words left over go to the last argument, so `/summarize a long topic` works for a one-argument prompt.
  const last = free[free.length - 1];
  if (rest.length > 0 && last && args[last.name] !== undefined) args[last.name] += ` ${rest.join(' ')}`;
  else if (rest.length > 0) unknown.push(...rest);
  const missing = declared
    .filter((a) => a.required === true && args[a.name] === undefined)
    .map((a) => a.name);
  return { args, missing, unknown };
}

function* words(text: string): Generator<{ raw: string; quotedKey: boolean }> {
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (i >= text.length) return;
    let raw = '';
    let quotedKey = false;
    let first = true;
    while (i < text.length && !/\s/.test(text[i] as string)) {
      const c = text[i] as string;
      if (c === '"' || c === "'") {
        if (first) quotedKey = true;
        const end = text.indexOf(c, i + 1);
        const stop = end < 0 ? text.length : end;
        raw += text.slice(i + 1, stop);
        i = stop + 1;
      } else {
        raw += c;
        i++;
      }
      first = false;
    }
    yield { raw, quotedKey };
  }
}
