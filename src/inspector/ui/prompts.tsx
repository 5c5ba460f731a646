// The Prompts tab: the list, the arguments (required marks, the server's completions) and the rendered messages.
import { useState } from 'preact/hooks';
import type { GetPromptResult, Prompt } from '../../spec/types.js';
import { act } from './api.js';
import { CompletingInput } from './completion.js';
import { Blocks } from './content.js';
import { useList } from './use-list.js';

export function PromptsTab(props: { connected: boolean; listKey: string }) {
  const { items, error } = useList<Prompt>('prompts', props.connected, props.listKey);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const prompt = items.find((p) => p.name === selected);
  return (
    <section class="split" data-tab="prompts">
      <nav class="list">
        <div class="list-head">{items.length} prompts</div>
        {error ? <p class="error-text">{error}</p> : null}
        {items.map((p) => (
          <button
            type="button"
            key={p.name}
            data-prompt={p.name}
            class={p.name === selected ? 'item selected' : 'item'}
            onClick={() => setSelected(p.name)}
          >
            <strong>{p.title ?? p.name}</strong>
            {p.description ? <span class="muted">{p.description}</span> : null}
          </button>
        ))}
      </nav>
      <div class="detail">
        {prompt ? <PromptDetail key={prompt.name} prompt={prompt} /> : <p class="muted">Pick a prompt.</p>}
      </div>
    </section>
  );
}

function PromptDetail(props: { prompt: Prompt }) {
  const { prompt } = props;
  const [values, setValues] = useState<Record<string, string>>({});
  const [result, setResult] = useState<GetPromptResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <div data-prompt-detail={prompt.name}>
      <h3>{prompt.title ?? prompt.name}</h3>
      {prompt.description ? <p>{prompt.description}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const args = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
          const missing = (prompt.arguments ?? []).filter((a) => a.required && args[a.name] === undefined);
          if (missing.length > 0) {
            setError(
              `Fill in the required ${missing.length === 1 ? 'argument' : 'arguments'} first: ${missing.map((a) => a.name).join(', ')}`,
            );
            return;
          }
          act<GetPromptResult>('prompt', { name: prompt.name, arguments: args }).then(
            (r) => {
              setResult(r);
              setError(undefined);
            },
            (err: Error) => setError(err.message),
          );
        }}
      >
        {(prompt.arguments ?? []).map((a) => (
          <div class="field" key={a.name}>
            <span class="field-label">
              {a.name}
              {a.required ? (
                <span class="required" title="required">
                  *
                </span>
              ) : null}
            </span>
            {a.description ? <span class="help">{a.description}</span> : null}
            <CompletingInput
              name={`arg.${a.name}`}
              value={values[a.name] ?? ''}
              onChange={(v) => setValues({ ...values, [a.name]: v })}
              reference={{ type: 'ref/prompt', name: prompt.name }}
              argument={a.name}
              context={values}
            />
          </div>
        ))}
        <button type="submit" class="primary" data-get-prompt>
          Get prompt
        </button>
      </form>
      {error ? (
        <p class="error-text" data-prompt-error>
          {error}
        </p>
      ) : null}
      {result ? (
        <div class="messages" data-messages>
          {result.description ? <p class="muted">{result.description}</p> : null}
          {result.messages.map((m, i) => (
            <div class={`message ${m.role}`} key={String(i)}>
              <span class="role">{m.role}</span>
              <Blocks blocks={[m.content]} />
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
