// The form schemas the elicitation tools ask with (primitive properties only, as the spec requires).

/** A plain form: a user name and an e-mail address. */
export const USER_FORM = {
  type: 'object',
  properties: {
    username: { type: 'string', title: 'Username', description: 'Your user name' },
    email: { type: 'string', title: 'E-mail', description: 'Your e-mail address', format: 'email' },
  },
  required: ['username', 'email'],
};

/** SEP-1034: every primitive kind with a default the client should fill in. */
export const DEFAULTS_FORM = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

const choices = (prefix: string, titles: string[]) =>
  titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));

/** SEP-1330: the five enum shapes (untitled, titled, legacy enumNames, and two multi-selects). */
export const ENUMS_FORM = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      description: 'Pick one (untitled enum)',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      description: 'Pick one (titled oneOf)',
      oneOf: choices('value', ['First Option', 'Second Option', 'Third Option']),
    },
    legacyEnum: {
      type: 'string',
      description: 'Pick one (legacy enumNames)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Pick several (untitled)',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Pick several (titled anyOf)',
      minItems: 1,
      maxItems: 3,
      items: { anyOf: choices('value', ['First Choice', 'Second Choice', 'Third Choice']) },
    },
  },
  required: [],
};
