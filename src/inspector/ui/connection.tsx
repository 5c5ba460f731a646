// The connection bar (target, era, connect) and the Server tab (what was negotiated).
import { useEffect, useState } from 'preact/hooks';
import type { ConnectionState } from '../session.js';
import { act } from './api.js';
import { Json } from './content.js';
import { Markdown } from './markdown.js';

/** Header lines `Name: value` to an object. */
function parseHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}

/** The kinds of target the page can choose: a command, a URL, a configured server's name, the configured host. */
type Kind = 'stdio' | 'http' | 'configured' | 'host';

/** The field that shows the current target (its command, URL or configured name), so it is never blank. */
function currentField(state: ConnectionState | undefined): { kind: Kind; text: string } | undefined {
  const target = state?.target;
  if (!target) return undefined;
  if (target.kind === 'host') return { kind: 'host', text: '' };
  if (target.configured !== undefined && state?.configured.includes(target.configured))
    return { kind: 'configured', text: target.configured };
  if (target.kind === 'http') return { kind: 'http', text: target.label };
  if (target.kind === 'stdio') return { kind: 'stdio', text: target.label };
  // A target built by the command line: a URL's label starts with its scheme, a command's does not; one that is
  // neither (an in-process transport) has no field.
  if (state?.transport === 'custom') return undefined;
  return /^https?:\/\//i.test(target.label)
    ? { kind: 'http', text: target.label }
    : { kind: 'stdio', text: target.label };
}

export function ConnectBar(props: { state: ConnectionState | undefined; live: boolean }) {
  const state = props.state;
  const [kind, setKind] = useState<Kind>(state?.target?.kind === 'http' ? 'http' : 'stdio');
  const [command, setCommand] = useState('');
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState('');
  const [oauth, setOauth] = useState(false);
  const [scope, setScope] = useState('');
  const [configured, setConfigured] = useState('');
  const [revision, setRevision] = useState(state?.selection.revision ?? 'auto');
  const [error, setError] = useState<string | undefined>(undefined);
  const names = state?.configured ?? [];
  const name = configured !== '' ? configured : (names[0] ?? '');
  const current = currentField(state);
  // A new target shows in its field (the page opened, or connected elsewhere): what Reconnect reconnects to.
  useEffect(() => {
    if (!current) {
      // A target no field can show (an in-process transport): empty fields, so the button reconnects to it.
      if (state?.target) {
        setCommand('');
        setUrl('');
      }
      return;
    }
    setKind(current.kind);
    if (current.kind === 'stdio') setCommand(current.text);
    else if (current.kind === 'http') setUrl(current.text);
    else if (current.kind === 'configured') setConfigured(current.text);
  }, [state?.target?.label, state?.target?.kind, state?.target?.configured, state?.transport]);
  const text =
    kind === 'stdio' ? command.trim() : kind === 'http' ? url.trim() : kind === 'configured' ? name : '';
  // The field still shows the current target: the button reconnects to it (the server holds it, headers included).
  const unchanged =
    current !== undefined &&
    current.kind === kind &&
    current.text === text &&
    (kind !== 'http' || (headers.trim() === '' && !oauth));
  const typed = !unchanged && (kind === 'host' || text !== '');
  const connect = (withTarget: boolean) => {
    setError(undefined);
    const target = !withTarget
      ? undefined
      : kind === 'stdio'
        ? { kind, command }
        : kind === 'http'
          ? { kind, url: url.trim(), headers: parseHeaders(headers), oauth, scope }
          : kind === 'configured'
            ? { kind, name }
            : { kind };
    act('connect', target ? { target, revision } : { revision }).then(
      () => {
        // The server holds the target now (header values included): the fields show it (above), headers not.
        setHeaders('');
        setOauth(false);
        setScope('');
      },
      (e: Error) => setError(e.message),
    );
  };
  const status = state?.status ?? 'idle';
  return (
    <header class="bar">
      <strong class="logo">mcpkit inspector</strong>
      <span class={`status ${status}`} data-status={status} title={state?.error ?? ''}>
        {status}
        {props.live ? '' : ' (page offline)'}
      </span>
      <span class="target muted" data-target>
        {state?.target ? state.target.label : 'no target'}
      </span>
      <form
        class="connect"
        onSubmit={(e) => {
          e.preventDefault();
          connect(typed);
        }}
      >
        <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
          <option value="stdio">stdio</option>
          <option value="http">HTTP</option>
          {names.length > 0 ? <option value="configured">configured</option> : null}
          {state?.host ? <option value="host">host (all configured)</option> : null}
        </select>
        {kind === 'configured' ? (
          <select name="configured" value={name} onChange={(e) => setConfigured(e.currentTarget.value)}>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        ) : kind === 'host' ? (
          <span class="muted host-note">every configured server, through mcpkit’s host</span>
        ) : kind === 'stdio' ? (
          <input
            name="command"
            placeholder="command to spawn, e.g. node server.js"
            value={command}
            onInput={(e) => setCommand(e.currentTarget.value)}
          />
        ) : (
          <>
            <input
              name="url"
              placeholder="http://127.0.0.1:3000/mcp"
              value={url}
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
            <textarea
              name="headers"
              rows={1}
              placeholder="Header: value (one a line; kept on the server)"
              value={headers}
              onInput={(e) => setHeaders(e.currentTarget.value)}
            />
            <label
              class="oauth-switch"
              title="sign in through the browser when the server asks (tokens stay on the inspector’s side)"
            >
              <input
                type="checkbox"
                name="oauth"
                checked={oauth}
                onChange={(e) => setOauth(e.currentTarget.checked)}
              />{' '}
              OAuth
            </label>
            {oauth ? (
              <input
                name="scope"
                class="scope"
                placeholder="scopes (optional)"
                value={scope}
                onInput={(e) => setScope(e.currentTarget.value)}
              />
            ) : null}
          </>
        )}
        <select
          name="revision"
          value={revision}
          title="negotiate, or pin a revision"
          onChange={(e) => setRevision(e.currentTarget.value)}
        >
          <option value="auto">era: auto</option>
          {(state?.revisions ?? []).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" data-connect>
          {typed ? 'Connect' : 'Reconnect'}
        </button>
        <button type="button" onClick={() => act('disconnect').catch((e: Error) => setError(e.message))}>
          Disconnect
        </button>
      </form>
      {state?.signIn ? (
        <div class="sign-in" data-sign-in-pending>
          The server asks you to sign in at {state.signIn.server}:{' '}
          <a href={state.signIn.start} target="_blank" rel="noopener noreferrer" data-sign-in>
            Sign in
          </a>{' '}
          <span class="muted">(a new tab; the tokens stay with the inspector, never in this page)</span>
        </div>
      ) : null}
      {error || (status === 'failed' && state?.error) ? (
        <div class="error-text bar-error">{error ?? state?.error}</div>
      ) : null}
    </header>
  );
}

export function ServerTab(props: { state: ConnectionState | undefined }) {
  const s = props.state;
  const [level, setLevel] = useState('debug');
  const [note, setNote] = useState<string | undefined>(undefined);
  if (!s) return <p class="muted">Loading…</p>;
  const rows: [string, unknown][] = [
    ['status', s.status],
    [
      'target',
      s.target
        ? `${s.target.label}${s.target.headerNames?.length ? ` (headers: ${s.target.headerNames.join(', ')})` : ''}${s.target.oauth ? ' (OAuth)' : ''}`
        : '—',
    ],
    ['era', s.era ?? '—'],
    ['revision', s.protocolVersion ?? '—'],
    ['transport', s.transport ?? '—'],
    ['server', s.serverInfo ? `${s.serverInfo.title ?? s.serverInfo.name} ${s.serverInfo.version}` : '—'],
    ['era choice', s.selection.revision],
  ];
  return (
    <section class="server-tab" data-tab="server">
      <table class="facts">
        <tbody>
          {rows.map(([k, v]) => (
            <tr key={k}>
              <th>{k}</th>
              <td data-fact={k}>{String(v)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {s.error ? <p class="error-text">{s.error}</p> : null}
      {s.hostServers ? (
        <>
          <h4>The host’s servers</h4>
          <table class="facts" data-host-servers>
            <tbody>
              {s.hostServers.map((h) => (
                <tr key={h.name} data-host-server={h.name}>
                  <th>{h.name}</th>
                  <td data-host-state={h.state}>
                    {h.state}
                    {h.reason ? ` — ${h.reason}` : ''}
                  </td>
                  <td
                    data-host-sandbox={h.sandbox === undefined ? 'n/a' : h.sandbox.sandboxed ? 'on' : 'off'}
                    class={h.sandbox?.sandboxed ? 'sandbox-on' : 'sandbox-off'}
                  >
                    {h.sandbox?.summary ?? ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      <div class="row">
        <button
          type="button"
          onClick={() =>
            act('ping').then(
              () => setNote('pong'),
              (e: Error) => setNote(e.message),
            )
          }
        >
          Ping
        </button>
        {s.serverCapabilities?.logging ? (
          <label>
            server log level{' '}
            <select
              value={level}
              onChange={(e) => {
                const next = e.currentTarget.value;
                setLevel(next);
                act('level', { level: next }).catch((err: Error) => setNote(err.message));
              }}
            >
              {['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].map((l) => (
                <option key={l}>{l}</option>
              ))}
            </select>
          </label>
        ) : null}
        {note ? <span class="muted">{note}</span> : null}
      </div>
      <div class="columns">
        <div>
          <h4>Server capabilities</h4>
          <Json value={s.serverCapabilities ?? null} />
        </div>
        <div>
          <h4>Client capabilities</h4>
          <Json value={s.clientCapabilities} />
        </div>
      </div>
      <h4>Instructions</h4>
      {s.instructions ? <Markdown text={s.instructions} /> : <p class="muted">none</p>}
    </section>
  );
}
