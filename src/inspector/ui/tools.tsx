// The Tools tab: the list, a form generated from the selected tool's input schema, the call (with its progress and
// a cancel button) and the result rendered by content type.
import { useEffect, useState } from 'preact/hooks';
import { appResourceUriOf } from '../../spec/apps.js';
import type { CallToolResult, Tool } from '../../spec/types.js';
import type { CallEntry, ProgressEntry } from '../session.js';
import { act, newCallId } from './api.js';
import { AppView, openAhead, warmAppFrames } from './app-view.js';
import { ToolResult } from './content.js';
import { initialValue, missingRequired, type Schema } from './schema.js';
import { SchemaForm } from './schema-form.js';
import { useList } from './use-list.js';

export function ToolsTab(props: {
  connected: boolean;
  listKey: string;
  progress: ProgressEntry[];
  calls: CallEntry[];
}) {
  const { items, error, reload } = useList<Tool>('tools', props.connected, props.listKey);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const tool = items.find((t) => t.name === selected);
  const hasApps = items.some((t) => appResourceUriOf(t) !== undefined);
  useEffect(() => {
    if (hasApps) warmAppFrames();
  }, [hasApps]);
  return (
    <section class="split" data-tab="tools">
      <nav class="list">
        <div class="list-head">
          {items.length} tools{' '}
          <button type="button" class="small" onClick={reload}>
            refresh
          </button>
        </div>
        {error ? <p class="error-text">{error}</p> : null}
        {items.map((t) => (
          <button
            type="button"
            key={t.name}
            data-tool={t.name}
            class={t.name === selected ? 'item selected' : 'item'}
            onClick={() => setSelected(t.name)}
          >
            <strong>{t.title ?? t.name}</strong>
            <ToolName tool={t} />
            {t.description ? <span class="muted">{t.description}</span> : null}
          </button>
        ))}
      </nav>
      <div class="detail">
        {tool ? (
          <ToolDetail
            key={tool.name}
            tool={tool}
            listKey={props.listKey}
            progress={props.progress}
            calls={props.calls}
          />
        ) : (
          <p class="muted">Pick a tool.</p>
        )}
      </div>
    </section>
  );
}

/** The name `mcpkit call` and the model use, under a title that differs from it. */
function ToolName(props: { tool: Tool }) {
  const { tool } = props;
  if (tool.title === undefined || tool.title === tool.name) return null;
  return (
    <code class="tool-name" data-tool-name>
      {tool.name}
    </code>
  );
}

function ToolDetail(props: { tool: Tool; listKey: string; progress: ProgressEntry[]; calls: CallEntry[] }) {
  const { tool } = props;
  const schema = tool.inputSchema as Schema;
  const [args, setArgs] = useState<unknown>(() => initialValue(schema, schema) ?? {});
  const [callId, setCallId] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<CallToolResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [took, setTook] = useState<number | undefined>(undefined);
  const [calledWith, setCalledWith] = useState<Record<string, unknown> | undefined>(undefined);
  const appUri = appResourceUriOf(tool);
  useEffect(() => setArgs(initialValue(schema, schema) ?? {}), [tool.name]);

  // Nothing called from here yet: the last call of this tool from any page (one closed or reloaded while it ran).
  const mine = callId !== undefined || result !== undefined || error !== undefined;
  const elsewhere = mine ? undefined : props.calls.filter((c) => c.name === tool.name).pop();
  const runningId = callId ?? (elsewhere?.status === 'running' ? elsewhere.callId : undefined);
  const running = runningId !== undefined;
  const progress = runningId ? props.progress.find((p) => p.callId === runningId) : undefined;
  const shownResult = result ?? elsewhere?.result;
  const shownError = error ?? elsewhere?.error;
  const shownTook = took ?? elsewhere?.durationMs;
  const appShown = appUri !== undefined && (calledWith !== undefined || shownResult !== undefined);
  // Its App's document is read while the person fills in the form, not after they call (unless it is shown already).
  useEffect(() => {
    if (appUri !== undefined && !appShown) openAhead(appUri, tool.name, props.listKey);
  }, [appUri, tool.name, props.listKey]);
  const call = () => {
    const missing = missingRequired(schema, schema, args);
    if (missing.length > 0) {
      setError(
        `Fill in the required ${missing.length === 1 ? 'field' : 'fields'} first: ${missing.join(', ')}`,
      );
      return;
    }
    const id = newCallId();
    setCallId(id);
    setError(undefined);
    setResult(undefined);
    setCalledWith((args ?? {}) as Record<string, unknown>);
    const started = performance.now();
    act<CallToolResult>('call', { callId: id, name: tool.name, arguments: args ?? {} })
      .then(setResult, (e: Error) => setError(e.message))
      .finally(() => {
        setTook(performance.now() - started);
        setCallId(undefined);
      });
  };
  return (
    <div class="tool" data-tool-detail={tool.name}>
      <h3>
        {tool.title ?? tool.name} <ToolName tool={tool} />
      </h3>
      {tool.description ? <p>{tool.description}</p> : null}
      {tool.annotations ? (
        <p class="muted">
          {Object.entries(tool.annotations)
            .map(([k, v]) => `${k}: ${String(v)}`)
            .join(' · ')}
        </p>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!running) call();
        }}
      >
        <SchemaForm schema={schema} value={args} onChange={setArgs} id="args" />
        <div class="row">
          <button type="submit" class="primary" disabled={running} data-call>
            {running ? 'Running…' : 'Call tool'}
          </button>
          {running ? (
            <button type="button" onClick={() => act('cancel', { callId: runningId })}>
              Cancel
            </button>
          ) : null}
          {shownTook !== undefined && !running ? <span class="muted">{Math.round(shownTook)} ms</span> : null}
          {elsewhere ? (
            <span class="muted" data-call-elsewhere>
              called from another page
            </span>
          ) : null}
        </div>
      </form>
      {progress ? <ProgressBar entry={progress} /> : null}
      {shownError ? (
        <p class="error-text" data-call-error>
          {shownError}
        </p>
      ) : null}
      {appShown ? (
        <AppView uri={appUri} tool={tool} listKey={props.listKey} args={calledWith} result={shownResult} />
      ) : null}
      {shownResult ? (
        <ToolResult
          result={shownResult}
          {...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema })}
        />
      ) : null}
    </div>
  );
}

/** One progress bar: determinate when the server gave a total; its label on its own line above it. */
export function ProgressBar(props: { entry: ProgressEntry }) {
  const p = props.entry;
  return (
    <div class="progress" data-progress={p.callId} data-done={p.done ? 'yes' : 'no'}>
      <div class="progress-head">
        <span class="progress-name">{p.name}</span>
        <span class="muted" data-progress-text>
          {p.progress}
          {p.total === undefined ? '' : ` / ${p.total}`}
          {p.message ? ` · ${p.message}` : ''}
          {p.done ? ' · call ended' : ''}
        </span>
      </div>
      {p.total === undefined ? (
        <progress data-value={p.progress} />
      ) : (
        <progress value={p.progress} max={p.total} data-value={p.progress} />
      )}
    </div>
  );
}
