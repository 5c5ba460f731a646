/**
 * Access control: allow and deny rules on tools, resources (URI patterns), resource templates and prompts, by
 * principal, scope or a predicate on the caller's `AuthInfo`. What a caller may not use is hidden from its lists
 * and refused when used, in both eras. Rules are compiled once; list pages are cached per principal and scope set.
 */
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import type { NamedKind } from '../definitions/access.js';
import type { ListView } from '../definitions/registry.js';
import { type AuthInfo, principalOf } from '../handler/auth.js';
import { entriesOf, matcher, type NameRef } from './names.js';
import { invalid } from './rate.js';

/**
 * One rule. It applies to the kinds it names (`tools`, `resources`, `templates`, `prompts`: names, URIs or
 * templates, "*" matching any run of characters) and to the callers that meet all of its conditions (`principals`,
 * `scopes`, `when`; none: everyone). The first rule that applies decides; none: the `default`.
 */
export interface AccessRule {
  readonly effect: 'allow' | 'deny';
  readonly tools?: readonly string[];
  /** Resource URIs or patterns ("file:///public/*"); also checked for URIs read through a template. */
  readonly resources?: readonly string[];
  /** Resource templates as registered ("file:///{path}") or patterns. */
  readonly templates?: readonly string[];
  readonly prompts?: readonly string[];
  /** Principals as `principalOf` gives them ("<issuer>|sub:alice"); the rule applies to these only. */
  readonly principals?: readonly string[];
  /** Scopes the caller must all hold for the rule to apply. */
  readonly scopes?: readonly string[];
  /**
   * A predicate on the caller's verified token (undefined: unauthenticated). It must decide by what the token says,
   * the same for every token of one principal and scope set: list pages are cached by principal and scopes.
   */
  readonly when?: (auth: AuthInfo | undefined) => boolean;
}

/**
 * The `access` option of a server.
 *
 * @example
 * new McpServer(info, {
 *   access: {
 *     rules: [
 *       { effect: 'allow', tools: ['*'], scopes: ['admin'] },
 *       { effect: 'deny', tools: ['delete_*', 'shutdown'] },
 *       { effect: 'deny', resources: ['file:///secret/*'], when: (auth) => auth?.claims?.role !== 'ops' },
 *     ],
 *   },
 * });
 */
export interface AccessOptions {
  readonly rules: readonly AccessRule[];
  /** What applies when no rule does. Default "allow". */
  readonly default?: 'allow' | 'deny';
}

type Kinds = 'tools' | 'resources' | 'templates' | 'prompts';

const KIND_OF: Readonly<Record<Kinds, NamedKind>> = {
  tools: 'tool',
  resources: 'resource',
  templates: 'template',
  prompts: 'prompt',
};

/** What decides a name: a constant, or the rules naming it (the first that applies to the caller decides). */
type Decision = boolean | readonly CompiledRule[];

/** Names whose decision is kept, per kind (registered names: far fewer). */
const MAX_DECISIONS = 10_000;

interface CompiledRule {
  readonly allow: boolean;
  readonly targets: Partial<Record<NamedKind, (name: string) => boolean>>;
  readonly principals: ReadonlySet<string> | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly when: ((auth: AuthInfo | undefined) => boolean) | undefined;
}

/** The compiled access rules of a server. */
export class AccessPolicy {
  readonly #rules: CompiledRule[] = [];
  readonly #default: boolean;
  /** Which kinds some rule names (others are never filtered). */
  readonly #kinds = new Set<NamedKind>();
  readonly #views = new Map<NamedKind, WeakMap<AuthInfo, ListView>>();
  readonly #anonymous = new Map<NamedKind, ListView>();
  readonly #decisions = new Map<NamedKind, Map<string, Decision>>();
  /** Names the rules refer to. */
  readonly names: NameRef[] = [];

  constructor(options: AccessOptions) {
    if (typeof options !== 'object' || options === null || !Array.isArray(options.rules))
      throw invalid('access', 'must be { rules: [...] }');
    const fallback = options.default ?? 'allow';
    if (fallback !== 'allow' && fallback !== 'deny')
      throw invalid('access.default', 'must be "allow" or "deny"');
    this.#default = fallback === 'allow';
    options.rules.forEach((rule, i) => {
      this.#rules.push(this.#compile(rule, `access.rules[${i}]`));
    });
  }

  #compile(rule: AccessRule, where: string): CompiledRule {
    if (typeof rule !== 'object' || rule === null) throw invalid(where, 'must be an object');
    if (rule.effect !== 'allow' && rule.effect !== 'deny')
      throw invalid(`${where}.effect`, 'must be "allow" or "deny"');
    const targets: Partial<Record<NamedKind, (name: string) => boolean>> = {};
    for (const list of ['tools', 'resources', 'templates', 'prompts'] as const) {
      const names = rule[list];
      if (names === undefined) continue;
      if (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || n === ''))
        throw invalid(`${where}.${list}`, 'must be an array of names or "*" patterns');
      const kind = KIND_OF[list];
      const tests = names.map((n) => matcher(n));
      const exact = new Set(names);
      targets[kind] =
        tests.length === names.filter((n) => !n.includes('*')).length
          ? (name) => exact.has(name)
          : (name) => exact.has(name) || tests.some((t) => t(name));
      this.#kinds.add(kind);
      for (const name of names)
        if (kind !== 'resource') this.names.push({ kind, name, where: `${where}.${list}` });
    }
    if (Object.keys(targets).length === 0)
      throw invalid(where, 'names nothing: give tools, resources, templates or prompts');
    for (const [field, value] of entriesOf({ principals: rule.principals, scopes: rule.scopes }, where)) {
      if (value !== undefined && (!Array.isArray(value) || value.some((v) => typeof v !== 'string')))
        throw invalid(`${where}.${field}`, 'must be an array of strings');
    }
    if (rule.when !== undefined && typeof rule.when !== 'function')
      throw invalid(`${where}.when`, 'must be a function of the AuthInfo');
    return {
      allow: rule.effect === 'allow',
      targets,
      principals: rule.principals === undefined ? undefined : new Set(rule.principals),
      scopes: rule.scopes,
      when: rule.when,
    };
  }

  /** Whether some rule names this kind (a kind no rule names is always allowed by default "allow"). */
  governs(kind: NamedKind): boolean {
    return this.#kinds.has(kind) || !this.#default;
  }

  /**
   * Whether `auth` may use the `kind` named `name`; `template`: the template a resource URI is read through (rules
   * on the template apply to it too).
   */
  allows(kind: NamedKind, name: string, auth: AuthInfo | undefined, template?: string): boolean {
    if (template === undefined && kind !== 'resource') return this.#decide(this.#rulesFor(kind, name), auth);
    const rules = this.#rules;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i] as CompiledRule;
      const test = rule.targets[kind];
      const hit =
        test?.(name) === true || (template !== undefined && rule.targets.template?.(template) === true);
      if (hit && applies(rule, auth)) return rule.allow;
    }
    return this.#default;
  }

  /**
   * The decision on a tool, prompt or template `name`, worked out once: a constant when the first rule naming it
   * has no condition (or no rule names it), else the rules naming it, in order. Resource URIs, which templates
   * make without bound, are not kept.
   */
  #rulesFor(kind: NamedKind, name: string): Decision {
    let byName = this.#decisions.get(kind);
    if (byName === undefined) {
      byName = new Map();
      this.#decisions.set(kind, byName);
    }
    let decision = byName.get(name);
    if (decision !== undefined) return decision;
    const naming = this.#rules.filter((rule) => rule.targets[kind]?.(name) === true);
    const first = naming[0];
    if (first === undefined) decision = this.#default;
    else if (first.principals === undefined && first.scopes === undefined && first.when === undefined)
      decision = first.allow;
    else decision = naming;
    if (byName.size < MAX_DECISIONS) byName.set(name, decision);
    return decision;
  }

  #decide(decision: Decision, auth: AuthInfo | undefined): boolean {
    if (typeof decision === 'boolean') return decision;
    for (let i = 0; i < decision.length; i++) {
      const rule = decision[i] as CompiledRule;
      if (applies(rule, auth)) return rule.allow;
    }
    return this.#default;
  }

  /** Refuses a use that the rules deny: `Forbidden`, as for missing scopes. */
  check(kind: NamedKind, name: string, auth: AuthInfo | undefined, template?: string): void {
    if (this.allows(kind, name, auth, template)) return;
    throw new JsonRpcError(
      ErrorCode.InvalidRequest,
      `Forbidden: the ${kind} ${name} is not available to this caller`,
      {
        reason: 'access_denied',
      },
    );
  }

  /** The list filter of `auth` for `kind` (undefined when the rules never hide that kind), made once per token. */
  view(kind: NamedKind, auth: AuthInfo | undefined): ListView | undefined {
    if (!this.governs(kind)) return undefined;
    if (auth === undefined) {
      let view = this.#anonymous.get(kind);
      if (view === undefined) {
        view = { key: '', allows: (name) => this.allows(kind, name, undefined) };
        this.#anonymous.set(kind, view);
      }
      return view;
    }
    let views = this.#views.get(kind);
    if (views === undefined) {
      views = new WeakMap();
      this.#views.set(kind, views);
    }
    let view = views.get(auth);
    if (view === undefined) {
      view = {
        key: `${principalOf(auth) ?? ''}\n${[...auth.scopes].sort().join(' ')}`,
        allows: (name) => this.allows(kind, name, auth),
      };
      views.set(auth, view);
    }
    return view;
  }
}

function applies(rule: CompiledRule, auth: AuthInfo | undefined): boolean {
  if (rule.principals !== undefined) {
    const principal = principalOf(auth);
    if (principal === undefined || !rule.principals.has(principal)) return false;
  }
  if (rule.scopes !== undefined) {
    const granted = auth?.scopes;
    if (granted === undefined) return false;
    for (const s of rule.scopes) if (!granted.includes(s)) return false;
  }
  return rule.when === undefined || rule.when(auth) === true;
}
