import { basename, sep } from 'node:path';
import { McpkitError } from '../../jsonrpc/errors.js';

/** Turns the inside of one `${…}` into its value, or throws an Error saying why it cannot. */
export type VariableResolver = (expression: string) => string | Promise<string>;

/** What the variables of a config file are taken from. */
export interface ExpansionContext {
  /** The environment `${VAR}` and `${env:NAME}` read. */
  env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (`${userHome}`). */
  userHome: string;
  /** The workspace (project) folder, for `${workspaceFolder}`; unset outside a workspace. */
  workspaceFolder?: string | undefined;
  /** Asks the person for the value of a VS Code input (`${input:id}`); asked once per id and file. */
  input?: ((id: string) => Promise<string>) | undefined;
}

const VARIABLE = /\$\{([^}]*)\}/g;

/** `value` with every `${…}` replaced through `resolve` (one pass: substituted text is never expanded again). */
export async function expandString(value: string, resolve: VariableResolver): Promise<string> {
  if (!value.includes('${')) return value;
  let out = '';
  let last = 0;
  for (const m of value.matchAll(VARIABLE)) {
    out += value.slice(last, m.index) + (await resolve(m[1] as string));
    last = m.index + m[0].length;
  }
  return out + value.slice(last);
}

/** Claude Code: `${VAR}` (an error when unset) and `${VAR:-default}`. */
export function claudeCodeResolver(ctx: ExpansionContext): VariableResolver {
  return (expression) => shellStyle(expression, ctx) ?? unknownVariable(expression);
}

/** VS Code: `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${env:NAME}`, `${input:id}`, `${pathSeparator}`. */
export function vscodeResolver(ctx: ExpansionContext): VariableResolver {
  return (expression) => {
    if (expression.startsWith('input:')) return askInput(ctx, expression.slice(6));
    return editorStyle(expression, ctx) ?? unknownVariable(expression);
  };
}

/** Cursor: `${env:NAME}`, `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}`. */
export function cursorResolver(ctx: ExpansionContext): VariableResolver {
  return (expression) => editorStyle(expression, ctx) ?? unknownVariable(expression);
}

/** The mcpkit format: the editor variables and the shell-style `${VAR}` / `${VAR:-default}`. */
export function mcpkitResolver(ctx: ExpansionContext): VariableResolver {
  return (expression) =>
    editorStyle(expression, ctx) ?? shellStyle(expression, ctx) ?? unknownVariable(expression);
}

/** `${VAR}` / `${VAR:-default}`, or undefined when `expression` is not of that form. */
function shellStyle(expression: string, ctx: ExpansionContext): string | undefined {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(expression);
  if (!m) return undefined;
  const name = m[1] as string;
  const value = ctx.env[name];
  if (value !== undefined && value !== '') return value;
  if (m[2] !== undefined) return m[2];
  if (value !== undefined) return value;
  throw new Error(`the environment variable ${name} is not set (write \${${name}:-default} for a default)`);
}

/** The editors' predefined variables, or undefined when `expression` is none of them. */
function editorStyle(expression: string, ctx: ExpansionContext): string | undefined {
  if (expression.startsWith('env:')) return ctx.env[expression.slice(4)] ?? '';
  switch (expression) {
    case 'userHome':
      return ctx.userHome;
    case 'workspaceFolder':
      return workspace(ctx, expression);
    case 'workspaceFolderBasename':
      return basename(workspace(ctx, expression));
    case 'pathSeparator':
    case '/':
      return sep;
    default:
      return undefined;
  }
}

function workspace(ctx: ExpansionContext, expression: string): string {
  if (ctx.workspaceFolder === undefined)
    throw new Error(`\${${expression}} is used but no workspace folder was given`);
  return ctx.workspaceFolder;
}

async function askInput(ctx: ExpansionContext, id: string): Promise<string> {
  if (ctx.input === undefined)
    throw new Error(`\${input:${id}} needs a value but no input callback was given`);
  const value: unknown = await ctx.input(id);
  if (typeof value !== 'string')
    throw new McpkitError('CONFIG_INVALID', `the input callback gave no string for "${id}"`);
  return value;
}

function unknownVariable(expression: string): never {
  throw new Error(`unknown variable \${${expression}}`);
}
