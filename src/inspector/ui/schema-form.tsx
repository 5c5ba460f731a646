// A form generated from a JSON Schema: strings, numbers, booleans, enums (single and multiple), arrays, nested
// objects, defaults and required marks; anything else (or the whole value, in raw mode) as JSON text.
import { useEffect, useState } from 'preact/hooks';
import { type Choice, choicesOf, kindOf, resolve, type Schema, typeOf } from './schema.js';

interface FieldProps {
  schema: Schema;
  root: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  /** The field's path, for ids and test selectors. */
  path: string;
  label: string;
  required: boolean;
}

/** The whole form: a field per property (or one field for a non-object schema), with a raw-JSON switch. */
export function SchemaForm(props: {
  schema: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  id: string;
}) {
  const [raw, setRaw] = useState(false);
  const root = props.schema;
  const schema = resolve(root, root);
  return (
    <div class="schema-form" data-form={props.id}>
      {/* On a row of its own: floated beside the first field, it made that field narrower than the others. */}
      <div class="form-head">
        <label class="raw-switch">
          <input
            type="checkbox"
            checked={raw}
            onChange={(e) => setRaw(e.currentTarget.checked)}
            data-raw-switch
          />
          raw JSON
        </label>
      </div>
      {raw ? (
        <JsonField value={props.value} onChange={props.onChange} path={`${props.id}.raw`} rows={10} />
      ) : kindOf(schema, root) === 'object' ? (
        <ObjectFields
          schema={schema}
          root={root}
          value={props.value}
          onChange={props.onChange}
          path={props.id}
        />
      ) : (
        <Field
          schema={schema}
          root={root}
          value={props.value}
          onChange={props.onChange}
          path={props.id}
          label="value"
          required
        />
      )}
    </div>
  );
}

function ObjectFields(props: {
  schema: Schema;
  root: Schema;
  value: unknown;
  onChange: (value: unknown) => void;
  path: string;
}) {
  const value = isRecord(props.value) ? props.value : {};
  const required = new Set(props.schema.required ?? []);
  const entries = Object.entries(props.schema.properties ?? {});
  if (entries.length === 0) return <p class="muted">No arguments.</p>;
  return (
    <div class="fields">
      {entries.map(([name, child]) => (
        <Field
          key={name}
          schema={resolve(child, props.root)}
          root={props.root}
          value={value[name]}
          path={`${props.path}.${name}`}
          label={name}
          required={required.has(name)}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[name];
            else next[name] = v;
            props.onChange(next);
          }}
        />
      ))}
    </div>
  );
}

function Field(props: FieldProps) {
  const { schema } = props;
  const kind = kindOf(schema, props.root);
  const title = schema.title && schema.title !== props.label ? ` (${schema.title})` : '';
  const head = (
    <span class="field-label">
      {props.label}
      {props.required && (
        <span class="required" title="required">
          *
        </span>
      )}
      <span class="muted">
        {title} {kind === 'json' ? 'JSON' : kind}
      </span>
    </span>
  );
  const help = schema.description ? <span class="help">{schema.description}</span> : null;
  if (kind === 'object')
    return (
      <fieldset class="field" data-field={props.path}>
        <legend>{head}</legend>
        {help}
        <ObjectFields
          schema={schema}
          root={props.root}
          value={props.value}
          onChange={props.onChange}
          path={props.path}
        />
      </fieldset>
    );
  if (kind === 'array' || kind === 'multi')
    return (
      <fieldset class="field" data-field={props.path}>
        <legend>{head}</legend>
        {help}
        {kind === 'multi' ? <MultiField {...props} /> : <ArrayField {...props} />}
      </fieldset>
    );
  return (
    <div class="field" data-field={props.path}>
      {head}
      {help}
      <Input {...props} kind={kind} />
    </div>
  );
}

function Input(props: FieldProps & { kind: string }) {
  const { schema, value, onChange } = props;
  switch (props.kind) {
    case 'enum': {
      const choices = choicesOf(schema) as Choice[];
      const index = choices.findIndex((c) => c.value === value);
      return (
        <select
          name={props.path}
          value={String(index)}
          onChange={(e) => {
            const i = Number(e.currentTarget.value);
            onChange(i < 0 ? undefined : choices[i]?.value);
          }}
        >
          <option value="-1">{props.required ? '(choose)' : '(unset)'}</option>
          {choices.map((c, i) => (
            <option key={String(i)} value={String(i)}>
              {c.label}
            </option>
          ))}
        </select>
      );
    }
    case 'boolean':
      return (
        <span class="bool">
          <input
            type="checkbox"
            name={props.path}
            checked={value === true}
            onChange={(e) => onChange(e.currentTarget.checked)}
          />
          {value === undefined ? <span class="muted">unset</span> : null}
        </span>
      );
    case 'number':
    case 'integer':
      return (
        <input
          type="number"
          name={props.path}
          step={props.kind === 'integer' ? 1 : 'any'}
          {...(schema.minimum === undefined ? {} : { min: schema.minimum })}
          {...(schema.maximum === undefined ? {} : { max: schema.maximum })}
          value={typeof value === 'number' ? String(value) : ''}
          onInput={(e) => {
            const text = e.currentTarget.value;
            onChange(text === '' ? undefined : Number(text));
          }}
        />
      );
    case 'string': {
      const common = {
        name: props.path,
        value: typeof value === 'string' ? value : '',
        onInput: (e: { currentTarget: HTMLInputElement }) => {
          const text = e.currentTarget.value;
          onChange(text === '' && !props.required ? undefined : text);
        },
      };
      // One element per input type: preact's typings tie each type to its own attributes.
      switch (schema.format) {
        case 'email':
          return <input type="email" {...common} />;
        case 'uri':
          return <input type="url" {...common} />;
        case 'date':
          return <input type="date" {...common} />;
        default:
          return <input type="text" {...common} />;
      }
    }
    default:
      return <JsonField value={value} onChange={onChange} path={props.path} rows={3} />;
  }
}

function MultiField(props: FieldProps) {
  const choices = choicesOf(resolve(props.schema.items, props.root)) as Choice[];
  const selected = Array.isArray(props.value) ? props.value : [];
  return (
    <div class="multi">
      {choices.map((c, i) => (
        <label key={String(i)} class="choice">
          <input
            type="checkbox"
            name={`${props.path}[${i}]`}
            checked={selected.includes(c.value)}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              const next = choices
                .filter((o) => (o === c ? on : selected.includes(o.value)))
                .map((o) => o.value);
              props.onChange(next);
            }}
          />
          {c.label}
        </label>
      ))}
    </div>
  );
}

function ArrayField(props: FieldProps) {
  const items = Array.isArray(props.value) ? props.value : [];
  const itemSchema = resolve(props.schema.items, props.root);
  const set = (next: unknown[]) => props.onChange(next);
  return (
    <div class="array">
      {items.map((item, i) => (
        <div class="array-item" key={String(i)}>
          <Field
            schema={itemSchema}
            root={props.root}
            value={item}
            path={`${props.path}[${i}]`}
            label={`#${i + 1}`}
            required
            onChange={(v) => set(items.map((old, j) => (j === i ? v : old)))}
          />
          <button type="button" class="small" onClick={() => set(items.filter((_, j) => j !== i))}>
            remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="small"
        data-add={props.path}
        onClick={() => set([...items, emptyOf(itemSchema)])}
      >
        add item
      </button>
    </div>
  );
}

function emptyOf(schema: Schema): unknown {
  if (schema.default !== undefined) return structuredClone(schema.default);
  const type = typeOf(schema);
  if (type === 'object') return {};
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'string') return '';
  return undefined;
}

/** A value as JSON text; it changes the value only while the text parses. */
export function JsonField(props: {
  value: unknown;
  onChange: (v: unknown) => void;
  path: string;
  rows: number;
}) {
  const shown = props.value === undefined ? '' : JSON.stringify(props.value, null, 2);
  const [text, setText] = useState(shown);
  const [error, setError] = useState<string | undefined>(undefined);
  // Follow outside changes (a reset form) unless the text being edited already means the same value.
  useEffect(() => {
    if (!sameJson(text, props.value)) setText(shown);
  }, [shown]);
  return (
    <span class="json-field">
      <textarea
        name={props.path}
        rows={props.rows}
        value={text}
        spellcheck={false}
        onInput={(e) => {
          const next = e.currentTarget.value;
          setText(next);
          if (next.trim() === '') {
            setError(undefined);
            props.onChange(undefined);
            return;
          }
          try {
            props.onChange(JSON.parse(next));
            setError(undefined);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          }
        }}
      />
      {error ? <span class="error-text">{error}</span> : null}
    </span>
  );
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
