// The live panes: raw JSON-RPC traffic both ways (time, direction, size, round-trip time), progress bars, log
// messages with a level filter, list changes and other events, and the activity log.
import { useState } from 'preact/hooks';
import { Json } from './content.js';
import type { Model } from './model.js';
import { ProgressBar } from './tools.js';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function clock(time: number | string): string {
  const d = new Date(time);
  return `${d.toTimeString().slice(0, 8)}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

type PaneName = 'traffic' | 'progress' | 'logs' | 'events' | 'activity';

export function LivePanes(props: {
  model: Model;
  onClear: (pane: 'traffic' | 'logs' | 'feed' | 'activity') => void;
}) {
  const [pane, setPane] = useState<PaneName>('traffic');
  const m = props.model;
  const counts: Record<PaneName, number> = {
    traffic: m.traffic.length,
    progress: m.progress.filter((p) => !p.done).length,
    logs: m.logs.length,
    events: m.feed.length,
    activity: m.activity.length,
  };
  return (
    <section class="panes">
      <div class="tabs">
        {(Object.keys(counts) as PaneName[]).map((name) => (
          <button
            type="button"
            key={name}
            data-pane-tab={name}
            class={pane === name ? 'tab selected' : 'tab'}
            onClick={() => setPane(name)}
          >
            {name} <span class="count">{counts[name]}</span>
          </button>
        ))}
      </div>
      <div class="pane-body">
        {pane === 'traffic' ? <Traffic model={m} onClear={() => props.onClear('traffic')} /> : null}
        {pane === 'progress' ? <Progress model={m} /> : null}
        {pane === 'logs' ? <Logs model={m} onClear={() => props.onClear('logs')} /> : null}
        {pane === 'events' ? <Events model={m} onClear={() => props.onClear('feed')} /> : null}
        {pane === 'activity' ? <Activity model={m} /> : null}
      </div>
    </section>
  );
}

function Traffic(props: { model: Model; onClear: () => void }) {
  const [filter, setFilter] = useState('');
  const [open, setOpen] = useState<number | undefined>(undefined);
  const rows = props.model.traffic
    .filter((t) => filter === '' || (t.method ?? t.kind).includes(filter) || String(t.id ?? '') === filter)
    .slice(-300)
    .reverse();
  return (
    <div data-pane="traffic">
      <div class="row">
        <input
          placeholder="filter by method or id"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
        <button type="button" class="small" onClick={props.onClear}>
          clear
        </button>
        <span class="muted">→ sent to the server · ← received</span>
      </div>
      <table class="grid">
        <thead>
          <tr>
            <th>time</th>
            <th />
            <th>kind</th>
            <th>method</th>
            <th>id</th>
            <th>size</th>
            <th>ms</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <>
              <tr
                key={t.seq}
                class={`traffic ${t.dir} ${t.kind}`}
                data-traffic={t.dir}
                data-method={t.method ?? ''}
                onClick={() => setOpen(open === t.seq ? undefined : t.seq)}
              >
                <td>{clock(t.time)}</td>
                <td class="dir">{t.dir === 'out' ? '→' : '←'}</td>
                <td>{t.kind}</td>
                <td>{t.method ?? ''}</td>
                <td>{t.id === undefined ? '' : String(t.id)}</td>
                <td>{size(t.size)}</td>
                <td>{t.ms === undefined ? '' : t.ms}</td>
              </tr>
              {open === t.seq ? (
                <tr key={`${t.seq}-body`} class="traffic-body">
                  <td colSpan={7}>
                    {t.truncated ? <p class="muted">first characters only: the message is large</p> : null}
                    {typeof t.message === 'string' ? <pre>{t.message}</pre> : <Json value={t.message} />}
                  </td>
                </tr>
              ) : null}
            </>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Progress(props: { model: Model }) {
  const list = props.model.progress;
  return (
    <div data-pane="progress">
      {list.length === 0 ? <p class="muted">No progress reported yet.</p> : null}
      {[...list].reverse().map((p) => (
        <ProgressBar key={p.callId} entry={p} />
      ))}
    </div>
  );
}

function Logs(props: { model: Model; onClear: () => void }) {
  const [min, setMin] = useState('debug');
  const floor = LEVELS.indexOf(min);
  const rows = props.model.logs
    .filter((l) => l.level === 'stderr' || LEVELS.indexOf(l.level) >= floor)
    .slice(-300)
    .reverse();
  return (
    <div data-pane="logs">
      <div class="row">
        <label>
          at least{' '}
          <select name="log-level" value={min} onChange={(e) => setMin(e.currentTarget.value)}>
            {LEVELS.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        <button type="button" class="small" onClick={props.onClear}>
          clear
        </button>
      </div>
      <table class="grid">
        <tbody>
          {rows.map((l) => (
            <tr key={l.seq} data-log={l.level}>
              <td>{clock(l.time)}</td>
              <td>
                <span class={`level ${l.level}`}>{l.level}</span>
              </td>
              <td class="muted">{l.logger ?? ''}</td>
              <td>{typeof l.data === 'string' ? l.data : JSON.stringify(l.data)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Events(props: { model: Model; onClear: () => void }) {
  const rows = props.model.feed.slice(-300).reverse();
  return (
    <div data-pane="events">
      <button type="button" class="small" onClick={props.onClear}>
        clear
      </button>
      <table class="grid">
        <tbody>
          {rows.map((f) => (
            <tr key={f.seq} data-event={f.kind}>
              <td>{clock(f.time)}</td>
              <td>
                <span class={`kind ${f.kind}`}>{f.kind.replace('_', ' ')}</span>
              </td>
              <td>
                <pre class="inline">{f.detail}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Activity(props: { model: Model }) {
  const rows = props.model.activity.slice(-300).reverse();
  const host = props.model.activitySource === 'host';
  return (
    <div data-pane="activity" data-activity-source={props.model.activitySource}>
      <p class="muted pane-note">
        {host
          ? 'The host’s activity log: connections, tool calls, approvals, tool definitions changed since approved, sampling and forms across the configured servers.'
          : 'The inspector’s own calls.'}
      </p>
      <table class="grid">
        <thead>
          <tr>
            <th>time</th>
            <th>kind</th>
            <th>server</th>
            <th>name</th>
            <th>outcome</th>
            <th>ms</th>
            <th>summary</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id} data-activity={a.kind}>
              <td>{clock(a.time)}</td>
              <td>{a.kind}</td>
              <td>{a.server ?? ''}</td>
              <td>{a.name ?? ''}</td>
              <td>{a.outcome}</td>
              <td>{a.durationMs === undefined ? '' : Math.round(a.durationMs)}</td>
              <td class="muted">
                {a.summary ?? ''}
                {a.diff === undefined ? null : (
                  <details>
                    <summary>what changed</summary>
                    <pre class="json" data-diff>
                      {a.diff}
                    </pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
