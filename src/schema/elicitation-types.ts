// The restricted JSON Schema shapes a form-mode elicitation may request (MCP 2025-11-25, `PrimitiveSchemaDefinition`).

/** Annotations every elicitation property may carry. */
interface Described {
  /** Label shown to the user. */
  title?: string;
  /** Help text shown to the user. */
  description?: string;
}

/** An option of a titled enum: the value sent back and the label shown. */
export interface ElicitationOption {
  /** The value. */
  const: string;
  /** The label. */
  title: string;
}

/** A free-text field. */
export interface ElicitationStringSchema extends Described {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
}

/** A numeric field. */
export interface ElicitationNumberSchema extends Described {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}

/** A yes/no field. */
export interface ElicitationBooleanSchema extends Described {
  type: 'boolean';
  default?: boolean;
}

/** A single choice among plain values. */
export interface UntitledSingleSelectEnumSchema extends Described {
  type: 'string';
  enum: string[];
  default?: string;
}

/** A single choice among labelled values. */
export interface TitledSingleSelectEnumSchema extends Described {
  type: 'string';
  oneOf: ElicitationOption[];
  default?: string;
}

/** A single choice with labels in `enumNames` (deprecated in 2025-11-25; use TitledSingleSelectEnumSchema). */
export interface LegacyTitledEnumSchema extends Described {
  type: 'string';
  enum: string[];
  enumNames?: string[];
  default?: string;
}

/** Several choices among plain values. */
export interface UntitledMultiSelectEnumSchema extends Described {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
}

/** Several choices among labelled values. */
export interface TitledMultiSelectEnumSchema extends Described {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { anyOf: ElicitationOption[] };
  default?: string[];
}

/** Any property a form-mode elicitation may request. */
export type ElicitationPropertySchema =
  | ElicitationStringSchema
  | ElicitationNumberSchema
  | ElicitationBooleanSchema
  | UntitledSingleSelectEnumSchema
  | TitledSingleSelectEnumSchema
  | LegacyTitledEnumSchema
  | UntitledMultiSelectEnumSchema
  | TitledMultiSelectEnumSchema;

/** A form-mode `requestedSchema`: a flat object of primitive properties. */
export interface ElicitationSchema {
  $schema?: string;
  type: 'object';
  properties: { [name: string]: ElicitationPropertySchema };
  required?: string[];
}

/** The content of an accepted form-mode elicitation. */
export type ElicitationContent = { [name: string]: string | number | boolean | string[] };
