import type { Client } from '../client/client.js';
import { skillsCapability } from '../client/skills.js';
import { errorMessage } from '../jsonrpc/errors.js';
import type { SkillEntry } from '../spec/skills.js';
import type { CallToolResult, Tool } from '../spec/types.js';
import type { ServerConfig } from './config/types.js';
import type { PinnedTool, ToolPinStore } from './pin-store.js';
import { canonicalJson, definitionDigest, type PinnedDefinition, serverPinKey } from './tool-digest.js';

/** The name of the host's tool that loads a skill into the model's context. */
export const LOAD_SKILL_TOOL = 'load_skill';

/** A skill of one of the host's servers, under the name the model and the person use for it. */
export interface HostSkill {
  /** `<server>/<skill path>`: unique per host (the server is the host's label for it, never its self-reported name). */
  name: string;
  server: string;
  entry: SkillEntry;
  /** The digest the person's approval binds to: the skill's URI, frontmatter and every file's URI and digest. */
  digest: string;
  /** Whether the person approved this very manifest. */
  approved: boolean;
}

/** What the person is asked before a skill is loaded into the model's context the first time, or after it changed. */
export interface SkillApprovalRequest {
  server: string;
  name: string;
  uri: string;
  description: string;
  /** The files the approval covers, with their sizes and digests. */
  files: { uri: string; size: number; digest: string }[];
  /** Set when an earlier manifest was approved: what differs (file URIs added, removed, changed; frontmatter). */
  changed?: { added: string[]; removed: string[]; modified: string[]; frontmatter: boolean };
}

/** Asks the person whether a skill may be loaded; true approves this manifest (pinned until it changes). */
export type SkillApprovalCallback = (request: SkillApprovalRequest) => boolean | Promise<boolean>;

/** What the host's skills need of the host. */
export interface SkillsHost {
  servers(): readonly ServerConfig[];
  clientOf(name: string): Client | undefined;
  readonly store: ToolPinStore | undefined;
  readonly approve: SkillApprovalCallback | undefined;
  warn(server: string, message: string): void;
}

/**
 * The skills of the host's servers (SEP-2640): listed from every ready server declaring the extension (no file is
 * fetched before it is loaded), approved by the person per manifest (kept in the tool pin store under the skill's
 * URI, so a skill whose files or frontmatter changed is asked about again, as a changed tool is), and offered to the
 * model through one tool, `load_skill`, that loads an approved skill's `SKILL.md` or one of its listed files, each
 * checked against its digest and tagged with the server it came from.
 */
export class HostSkills {
  readonly #host: SkillsHost;
  #skills: HostSkill[] = [];
  /** The entry each skill was loaded under, by name: its files are read only as that manifest lists them. */
  readonly #loaded = new Map<string, HostSkill>();

  constructor(host: SkillsHost) {
    this.#host = host;
  }

  /** The skills listed by the last {@link refresh}. */
  list(): readonly HostSkill[] {
    return this.#skills;
  }

  /** Lists the skills of every ready server declaring the extension (a server that fails is warned about, skipped). */
  async refresh(): Promise<readonly HostSkill[]> {
    const out: HostSkill[] = [];
    for (const config of this.#host.servers()) {
      const client = this.#host.clientOf(config.name);
      if (!client || !skillsCapability(client.serverCapabilities)) continue;
      try {
        for (const entry of await client.listSkills()) out.push(await this.#described(config, entry));
      } catch (e) {
        this.#host.warn(config.name, `listing its skills failed: ${errorMessage(e)}`);
      }
    }
    this.#skills = out;
    return out;
  }

  /** The `load_skill` tool naming every listed skill, or undefined when none is. */
  tool(): Tool | undefined {
    if (this.#skills.length === 0) return undefined;
    const lines = this.#skills.map(
      (s) => `- ${s.name}: ${oneLine(s.entry.frontmatter.description)} (from the server "${s.server}")`,
    );
    return {
      name: LOAD_SKILL_TOOL,
      description:
        "Loads a skill's instructions (its SKILL.md), or with `file` one of its files (a path relative to the skill). " +
        'Skills come from servers and are untrusted; the person approves each before its first load. Skills:\n' +
        lines.join('\n'),
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', enum: this.#skills.map((s) => s.name) },
          file: { type: 'string', description: 'a file of the loaded skill, relative to its folder' },
        },
        required: ['name'],
      },
    };
  }

  /**
   * Loads a skill (or one file of a loaded one) for the model: the entry fetched again (`skills/get`), the person
   * asked unless this very manifest is approved, each file checked against its digest. Failures are tool results
   * with `isError`, never thrown.
   */
  async load(args: Record<string, unknown>, approve = this.#host.approve): Promise<CallToolResult> {
    const name = args.name;
    const file = args.file;
    if (typeof name !== 'string') return failed('load_skill needs the "name" of a skill');
    if (file !== undefined && typeof file !== 'string') return failed('"file" must be a path');
    try {
      if (file !== undefined) return await this.#readFile(name, file);
      return await this.#load(name, approve);
    } catch (e) {
      return failed(`Loading the skill ${name} failed: ${errorMessage(e)}`);
    }
  }

  async #load(name: string, approve: SkillApprovalCallback | undefined): Promise<CallToolResult> {
    const known = this.#skills.find((s) => s.name === name);
    if (!known) return failed(`No skill is named "${name}"`);
    const config = this.#host.servers().find((c) => c.name === known.server);
    const client = this.#host.clientOf(known.server);
    if (!config || !client) return failed(`The server "${known.server}" of ${name} is not connected`);
    const entry = await client.getSkill(known.entry.uri);
    if (entry.resources === 'dynamic')
      return failed(
        `${name} is generated by its server without digests: it cannot be approved, so it is not loaded`,
      );
    const skill = await this.#described(config, entry);
    this.#skills = this.#skills.map((s) => (s.name === name ? skill : s));
    if (!skill.approved) {
      const pin = (await this.#pins(config))[entry.uri];
      const request: SkillApprovalRequest = {
        server: skill.server,
        name,
        uri: entry.uri,
        description: entry.frontmatter.description,
        files: entry.resources.map((r) => ({ uri: r.uri, size: r.size, digest: r.digest })),
      };
      if (pin) request.changed = difference(pin.definition, entry);
      if (!approve) return failed(`${name} needs the person's approval, and this host cannot ask`);
      if (!(await approve(request))) return failed(`The person did not approve loading ${name}`);
      await this.#pin(config, entry);
      skill.approved = true;
    }
    const text = (await client.readSkillFile(entry)).text ?? '';
    this.#loaded.set(name, skill);
    const root = entry.uri.slice(0, -'SKILL.md'.length);
    const files = (entry.resources as { uri: string }[])
      .map((r) => r.uri.slice(root.length))
      .filter((f) => f !== 'SKILL.md');
    const header =
      `[Skill "${name}" from the server "${skill.server}" (untrusted server content). ` +
      `Its files (load_skill with "file"): ${files.length > 0 ? files.join(', ') : 'none'}]`;
    return { content: [{ type: 'text', text: `${header}\n\n${text}` }] };
  }

  async #readFile(name: string, file: string): Promise<CallToolResult> {
    const skill = this.#loaded.get(name);
    if (!skill) return failed(`Load the skill ${name} first`);
    const client = this.#host.clientOf(skill.server);
    if (!client) return failed(`The server "${skill.server}" of ${name} is not connected`);
    const root = skill.entry.uri.slice(0, -'SKILL.md'.length);
    // The held entry decides: a path outside the skill or not listed is refused before anything is asked.
    const read = await client.readSkillFile(skill.entry, root + file);
    if (read.text === undefined)
      return {
        content: [{ type: 'text', text: `${file}: ${read.bytes.byteLength} bytes of binary content` }],
      };
    return {
      content: [
        {
          type: 'text',
          text: `[File ${file} of the skill "${name}" from "${skill.server}"]\n\n${read.text}`,
        },
      ],
    };
  }

  async #described(config: ServerConfig, entry: SkillEntry): Promise<HostSkill> {
    const path = entry.uri.slice(entry.uri.indexOf('://') + 3, -'/SKILL.md'.length);
    const digest = definitionDigest(pinDefinition(entry));
    const pin = (await this.#pins(config))[entry.uri];
    const approved = pin !== undefined && definitionDigest(pin.definition) === digest;
    return { name: `${config.name}/${path}`, server: config.name, entry, digest, approved };
  }

  async #pins(config: ServerConfig): Promise<Record<string, PinnedTool>> {
    const store = this.#host.store;
    if (!store) return {};
    try {
      return await store.load(serverPinKey(config));
    } catch (e) {
      this.#host.warn(config.name, `reading the skill approvals failed: ${errorMessage(e)}`);
      return {};
    }
  }

  async #pin(config: ServerConfig, entry: SkillEntry): Promise<void> {
    const definition = pinDefinition(entry);
    await this.#host.store?.save(serverPinKey(config), entry.uri, {
      digest: definitionDigest(definition),
      definition,
      pinnedAt: new Date().toISOString(),
    });
  }
}

/**
 * What an approval of a skill pins, in the tool pins' shape: kept under the skill's URI (never a tool's name, which
 * has no `:`), its manifest (frontmatter, and every file's URI and digest) in `annotations`.
 */
function pinDefinition(entry: SkillEntry): PinnedDefinition {
  const files =
    entry.resources === 'dynamic'
      ? 'dynamic'
      : entry.resources
          .map((r) => ({ uri: r.uri, digest: r.digest }))
          .sort((a, b) => (a.uri < b.uri ? -1 : 1));
  return {
    name: entry.uri,
    description: entry.frontmatter.description,
    annotations: { skill: { frontmatter: entry.frontmatter, files } },
  };
}

function difference(
  pinned: PinnedDefinition,
  entry: SkillEntry,
): NonNullable<SkillApprovalRequest['changed']> {
  const old = (pinned.annotations as { skill?: { frontmatter?: unknown; files?: unknown } } | undefined)
    ?.skill;
  const before = new Map<string, string>();
  if (Array.isArray(old?.files))
    for (const f of old.files as { uri: string; digest: string }[]) before.set(f.uri, f.digest);
  const now = new Map((entry.resources as { uri: string; digest: string }[]).map((r) => [r.uri, r.digest]));
  return {
    added: [...now.keys()].filter((u) => !before.has(u)),
    removed: [...before.keys()].filter((u) => !now.has(u)),
    modified: [...now].filter(([u, d]) => before.has(u) && before.get(u) !== d).map(([u]) => u),
    frontmatter: canonicalJson(old?.frontmatter) !== canonicalJson(entry.frontmatter),
  };
}

function failed(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
