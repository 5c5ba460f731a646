// The Roots tab: the list of roots offered to the server, edited by the person (a change is announced).
import { useEffect, useState } from 'preact/hooks';
import type { Root } from '../../spec/types.js';
import { act } from './api.js';

export function RootsTab(props: { roots: Root[] }) {
  const [rows, setRows] = useState<Root[]>(props.roots);
  const [note, setNote] = useState<string | undefined>(undefined);
  useEffect(() => setRows(props.roots), [JSON.stringify(props.roots)]);
  const update = (i: number, patch: Partial<Root>) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <section data-tab="roots" class="pad">
      <p class="muted">The server may ask for these with roots/list; applying a change announces it.</p>
      {rows.map((r, i) => (
        <div class="row" key={String(i)}>
          <input
            name={`root.${i}.uri`}
            class="grow"
            value={r.uri}
            placeholder="file:///path"
            onInput={(e) => update(i, { uri: e.currentTarget.value })}
          />
          <input
            name={`root.${i}.name`}
            value={r.name ?? ''}
            placeholder="name"
            onInput={(e) => update(i, { name: e.currentTarget.value })}
          />
          <button type="button" class="small" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
            remove
          </button>
        </div>
      ))}
      <div class="row">
        <button type="button" onClick={() => setRows([...rows, { uri: 'file:///' }])}>
          Add root
        </button>
        <button
          type="button"
          class="primary"
          data-apply-roots
          onClick={() =>
            act('roots', { roots: rows }).then(
              () => setNote('applied'),
              (e: Error) => setNote(e.message),
            )
          }
        >
          Apply
        </button>
        {note ? <span class="muted">{note}</span> : null}
      </div>
    </section>
  );
}
