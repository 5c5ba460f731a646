// The Resources tab: resources (read, subscribe and see updates live) and templates (fill the variables, with the
// server's completions, then read).
import { useEffect, useState } from 'preact/hooks';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../../spec/types.js';
import type { ConnectionState } from '../session.js';
import { act } from './api.js';
import { CompletingInput } from './completion.js';
import { Contents } from './content.js';
import { expandTemplate, templateVariables } from './uri-template.js';
import { useList } from './use-list.js';

type Pick = { kind: 'resource'; uri: string } | { kind: 'template'; template: string } | undefined;

export function ResourcesTab(props: {
  state: ConnectionState;
  listKey: string;
  updates: Record<string, number>;
}) {
  const connected = props.state.status === 'connected';
  const resources = useList<Resource>('resources', connected, props.listKey);
  const templates = useList<ResourceTemplate>('templates', connected, props.listKey);
  const [pick, setPick] = useState<Pick>(undefined);
  return (
    <section class="split" data-tab="resources">
      <nav class="list">
        <div class="list-head">{resources.items.length} resources</div>
        {resources.error ? <p class="error-text">{resources.error}</p> : null}
        {resources.items.map((r) => (
          <button
            type="button"
            key={r.uri}
            data-resource={r.uri}
            class={pick?.kind === 'resource' && pick.uri === r.uri ? 'item selected' : 'item'}
            onClick={() => setPick({ kind: 'resource', uri: r.uri })}
          >
            <strong>{r.title ?? r.name}</strong>
            <code class="muted">{r.uri}</code>
          </button>
        ))}
        <div class="list-head">{templates.items.length} templates</div>
        {templates.error ? <p class="error-text">{templates.error}</p> : null}
        {templates.items.map((t) => (
          <button
            type="button"
            key={t.uriTemplate}
            data-template={t.uriTemplate}
            class={pick?.kind === 'template' && pick.template === t.uriTemplate ? 'item selected' : 'item'}
            onClick={() => setPick({ kind: 'template', template: t.uriTemplate })}
          >
            <strong>{t.title ?? t.name}</strong>
            <code class="muted">{t.uriTemplate}</code>
          </button>
        ))}
      </nav>
      <div class="detail">
        {pick?.kind === 'resource' ? (
          <ResourceDetail
            key={pick.uri}
            uri={pick.uri}
            state={props.state}
            updates={props.updates[pick.uri] ?? 0}
            resource={resources.items.find((r) => r.uri === pick.uri)}
          />
        ) : pick?.kind === 'template' ? (
          <TemplateDetail key={pick.template} template={pick.template} />
        ) : (
          <p class="muted">Pick a resource or a template.</p>
        )}
      </div>
    </section>
  );
}

function ResourceDetail(props: {
  uri: string;
  state: ConnectionState;
  /** Updates the server announced for this URI since the page opened: each one read again while subscribed. */
  updates: number;
  resource: Resource | undefined;
}) {
  const [result, setResult] = useState<ReadResourceResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const updates = props.updates;
  const subscribed = props.state.subscriptions.includes(props.uri);
  const canSubscribe = props.state.serverCapabilities?.resources?.subscribe === true;
  const read = () =>
    act<ReadResourceResult>('read', { uri: props.uri }).then(
      (r) => {
        setResult(r);
        setError(undefined);
      },
      (e: Error) => setError(e.message),
    );
  useEffect(() => void read(), [props.uri]);
  // A subscribed resource is read again when the server says it changed.
  useEffect(() => {
    if (subscribed && updates > 0) void read();
  }, [props.updates]);
  return (
    <div data-resource-detail={props.uri}>
      <h3>{props.resource?.title ?? props.resource?.name ?? props.uri}</h3>
      {props.resource?.description ? <p>{props.resource.description}</p> : null}
      <div class="row">
        <button type="button" onClick={() => void read()} data-read>
          Read
        </button>
        {canSubscribe ? (
          <button
            type="button"
            data-subscribe
            onClick={() =>
              act(subscribed ? 'unsubscribe' : 'subscribe', { uri: props.uri }).catch((e: Error) =>
                setError(e.message),
              )
            }
          >
            {subscribed ? 'Unsubscribe' : 'Subscribe'}
          </button>
        ) : null}
        {subscribed ? (
          <span class="badge" data-updates={updates}>
            subscribed · {updates} update{updates === 1 ? '' : 's'}
          </span>
        ) : null}
      </div>
      {error ? <p class="error-text">{error}</p> : null}
      {result?.contents.map((c, i) => (
        <Contents key={String(i)} contents={c} />
      ))}
    </div>
  );
}

function TemplateDetail(props: { template: string }) {
  const variables = templateVariables(props.template);
  const [values, setValues] = useState<Record<string, string>>({});
  const [result, setResult] = useState<ReadResourceResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const uri = expandTemplate(props.template, values);
  return (
    <div data-template-detail={props.template}>
      <h3>
        <code>{props.template}</code>
      </h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act<ReadResourceResult>('read', { uri }).then(
            (r) => {
              setResult(r);
              setError(undefined);
            },
            (err: Error) => setError(err.message),
          );
        }}
      >
        {variables.map((name) => (
          <div class="field" key={name}>
            <span class="field-label">{name}</span>
            <CompletingInput
              name={`var.${name}`}
              value={values[name] ?? ''}
              onChange={(v) => setValues({ ...values, [name]: v })}
              reference={{ type: 'ref/resource', uri: props.template }}
              argument={name}
              context={values}
            />
          </div>
        ))}
        <p class="muted">
          URI: <code data-expanded>{uri}</code>
        </p>
        <button type="submit" class="primary" data-read-template>
          Read
        </button>
      </form>
      {error ? <p class="error-text">{error}</p> : null}
      {result?.contents.map((c, i) => (
        <Contents key={String(i)} contents={c} />
      ))}
    </div>
  );
}
