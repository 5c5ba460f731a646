// The server's requests, answered by the person: sampling (edit the answer, approve or decline) and elicitation
// (the form, or the URL to open).
import { useState } from 'preact/hooks';
import type { AppToolCall as Call } from '../../client/apps/policy.js';
import type { CreateMessageParams, ElicitParams } from '../../spec/types.js';
import type { PendingAsk } from '../asks.js';
import { act } from './api.js';
import { Blocks, Json } from './content.js';
import { initialValue, type Schema } from './schema.js';
import { SchemaForm } from './schema-form.js';

export function AskDialog(props: { ask: PendingAsk; more: number }) {
  const { ask } = props;
  const [error, setError] = useState<string | undefined>(undefined);
  const answer = (value: unknown) =>
    act('answer', { id: ask.id, answer: value }).catch((e: Error) => setError(e.message));
  return (
    <div class="overlay">
      <div class="dialog" role="dialog" data-ask={ask.kind}>
        <h3>
          {ask.kind === 'app-tool' ? 'An App asks to call a tool' : 'The server asks: '}
          {ask.kind === 'sampling'
            ? 'sampling (a model answer)'
            : ask.kind === 'elicitation'
              ? 'elicitation'
              : ''}
          {props.more > 0 ? <span class="muted"> (+{props.more} waiting)</span> : null}
        </h3>
        {ask.kind === 'sampling' ? (
          <Sampling key={ask.id} params={ask.params} answer={answer} />
        ) : ask.kind === 'elicitation' ? (
          <Elicitation key={ask.id} params={ask.params} answer={answer} />
        ) : (
          <AppToolCall key={ask.id} params={ask.params} answer={answer} />
        )}
        {error ? <p class="error-text">{error}</p> : null}
      </div>
    </div>
  );
}

function Sampling(props: { params: CreateMessageParams; answer: (value: unknown) => void }) {
  const p = props.params;
  const [text, setText] = useState('');
  const [model, setModel] = useState('mcpkit-inspector (person)');
  const [stopReason, setStopReason] = useState('endTurn');
  return (
    <div>
      {p.systemPrompt ? (
        <p>
          <span class="muted">system:</span> {p.systemPrompt}
        </p>
      ) : null}
      <div class="messages">
        {p.messages.map((m, i) => (
          <div class={`message ${m.role}`} key={String(i)}>
            <span class="role">{m.role}</span>
            <Blocks blocks={(Array.isArray(m.content) ? m.content : [m.content]) as never} />
          </div>
        ))}
      </div>
      <p class="muted">
        maxTokens {p.maxTokens}
        {p.modelPreferences ? ` · preferences ${JSON.stringify(p.modelPreferences)}` : ''}
      </p>
      <label class="field">
        <span class="field-label">Answer (as the assistant)</span>
        <textarea
          name="sampling.text"
          rows={4}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <div class="row">
        <label>
          model <input name="sampling.model" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
        </label>
        <label>
          stop{' '}
          <select value={stopReason} onChange={(e) => setStopReason(e.currentTarget.value)}>
            <option>endTurn</option>
            <option>maxTokens</option>
            <option>stopSequence</option>
          </select>
        </label>
      </div>
      <div class="row">
        <button
          type="button"
          class="primary"
          data-approve
          onClick={() =>
            props.answer({
              approve: true,
              result: { role: 'assistant', content: { type: 'text', text }, model, stopReason },
            })
          }
        >
          Approve and send
        </button>
        <button type="button" data-decline onClick={() => props.answer({ approve: false })}>
          Decline
        </button>
      </div>
    </div>
  );
}

function Elicitation(props: { params: ElicitParams; answer: (value: unknown) => void }) {
  const p = props.params;
  const schema = ('requestedSchema' in p ? p.requestedSchema : { type: 'object', properties: {} }) as Schema;
  const [content, setContent] = useState<unknown>(() => initialValue(schema, schema) ?? {});
  if ('url' in p && p.mode === 'url') {
    const safe = /^https?:\/\//i.test(p.url);
    return (
      <div>
        <p class="ask-message">{p.message}</p>
        <p>
          The server asks you to open <code data-url>{p.url}</code>
          {safe ? '' : ' (not an http(s) URL: not opened)'}
        </p>
        <div class="row">
          <button
            type="button"
            class="primary"
            disabled={!safe}
            onClick={() => {
              window.open(p.url, '_blank', 'noopener,noreferrer');
              props.answer({ action: 'accept' });
            }}
          >
            Open and accept
          </button>
          <button type="button" data-accept onClick={() => props.answer({ action: 'accept' })}>
            Accept
          </button>
          <DeclineOrCancel answer={props.answer} />
        </div>
      </div>
    );
  }
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.answer({ action: 'accept', content: content ?? {} });
      }}
    >
      <p class="ask-message">{p.message}</p>
      <SchemaForm schema={schema} value={content} onChange={setContent} id="elicit" />
      <details>
        <summary class="muted">requested schema</summary>
        <Json value={schema} />
      </details>
      <div class="row">
        <button type="submit" class="primary" data-accept>
          Accept
        </button>
        <DeclineOrCancel answer={props.answer} />
      </div>
    </form>
  );
}

/** An elicitation's two ways of saying no: decline (the person refused) and cancel (dismissed without a choice). */
function DeclineOrCancel(props: { answer: (value: unknown) => void }) {
  return (
    <>
      <button type="button" data-decline onClick={() => props.answer({ action: 'decline' })}>
        Decline
      </button>
      <button type="button" onClick={() => props.answer({ action: 'cancel' })}>
        Cancel
      </button>
    </>
  );
}

/** An App's tool call, allowed or denied by the person (the same question a model's call gets). */
function AppToolCall(props: { params: Call; answer: (value: unknown) => void }) {
  const p = props.params;
  return (
    <div>
      <p>
        The App <code data-app-uri>{p.app}</code> wants to call <code data-app-tool>{p.name}</code> with:
      </p>
      <Json value={p.arguments} />
      <div class="row">
        <button type="button" class="primary" data-approve onClick={() => props.answer({ approve: true })}>
          Allow this call
        </button>
        <button type="button" data-approve-app onClick={() => props.answer({ approve: true, for: 'app' })}>
          Allow {p.name} while this App is open
        </button>
        <button type="button" data-decline onClick={() => props.answer({ approve: false })}>
          Deny
        </button>
      </div>
    </div>
  );
}
