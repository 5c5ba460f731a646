// Scripted answers to the server's requests, so the examples run without a model or a user.
import type { CreateMessageParams, CreateMessageResult, ElicitResult, JsonSchema } from '../../src/index.js';

type FormValue = string | number | boolean | string[];

/** The text of the last user message of a sampling request. */
export function lastUserText(params: CreateMessageParams): string {
  for (const message of [...params.messages].reverse()) {
    if (message.role !== 'user') continue;
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    for (const block of blocks) if (block.type === 'text') return block.text;
  }
  return '';
}

/** Pretends to be a model: answers every sampling request with one short, predictable sentence. */
export function scriptedModel(params: CreateMessageParams): CreateMessageResult {
  const text = lastUserText(params);
  return {
    role: 'assistant',
    content: { type: 'text', text: `(scripted model) You asked: "${text}". The answer is 42.` },
    model: 'scripted-model-1',
    stopReason: 'endTurn',
  };
}

/**
 * Pretends to be a user filling in a form: answers only the required fields that have no default
 * (the client fills in the defaults itself), with the first option or a plausible value.
 */
export function scriptedForm(schema: JsonSchema): ElicitResult {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const content: Record<string, FormValue> = {};
  for (const name of required) {
    const property = properties[name];
    if (property === undefined || property.default !== undefined) continue;
    content[name] = plausible(property);
  }
  return { action: 'accept', content };
}

function firstOption(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  const options = (schema.oneOf ?? schema.anyOf) as { const?: unknown }[] | undefined;
  return Array.isArray(options) && options[0] !== undefined ? String(options[0].const) : undefined;
}

function plausible(schema: JsonSchema): FormValue {
  const option = firstOption(schema);
  if (option !== undefined) return option;
  switch (schema.type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.maximum === 'number'
          ? schema.maximum
          : 1;
    case 'array': {
      const item = firstOption((schema.items ?? {}) as JsonSchema);
      return item === undefined ? [] : [item];
    }
    default:
      return plausibleString(schema);
  }
}

function plausibleString(schema: JsonSchema): string {
  switch (schema.format) {
    case 'email':
      return 'user@example.com';
    case 'uri':
      return 'https://example.com/';
    case 'date':
      return '2025-01-01';
    case 'date-time':
      return '2025-01-01T00:00:00Z';
    default: {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return 'example'.padEnd(min, '!');
    }
  }
}
