// An input that asks the server for completions (completion/complete) as the person types, offered as a datalist.
import { useEffect, useState } from 'preact/hooks';
import { act } from './api.js';

type Reference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export function CompletingInput(props: {
  name: string;
  value: string;
  onChange: (value: string) => void;
  reference: Reference;
  argument: string;
  context: Record<string, string>;
}) {
  const [options, setOptions] = useState<string[]>([]);
  const listId = `complete-${props.name.replace(/[^\w-]/g, '_')}`;
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      const context = Object.fromEntries(Object.entries(props.context).filter(([k]) => k !== props.argument));
      act<{ values: string[] }>('complete', {
        ref: props.reference,
        argument: { name: props.argument, value: props.value },
        context,
      }).then(
        (c) => live && setOptions(c.values.slice(0, 100)),
        () => live && setOptions([]),
      );
    }, 120);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.value]);
  return (
    <span class="completing">
      <input
        name={props.name}
        list={listId}
        value={props.value}
        autocomplete="off"
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
      <datalist id={listId}>
        {options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
      {options.length > 0 ? (
        <span class="muted suggestions" data-suggestions={props.name}>
          {options.slice(0, 8).map((o) => (
            <button type="button" class="chip" key={o} onClick={() => props.onChange(o)}>
              {o}
            </button>
          ))}
        </span>
      ) : null}
    </span>
  );
}
