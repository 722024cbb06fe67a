import type {
  ElicitationEnumOption,
  ElicitationProperty,
  ElicitationSchema,
  ElicitationValue,
} from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';

/**
 * The fields of an elicitation form, for any UI (the CLI's answers, a terminal form, a web form):
 * what each field is, the choices it offers, its default and whether it is required. A property
 * of an unknown type is listed as `unknown` with its raw schema, never as a known kind
 * (ACP-ALL-ELIC-12).
 */
export interface ElicitationField {
  name: string;
  /** `title` or the property name. */
  label: string;
  description?: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'select' | 'multiselect' | 'unknown';
  required: boolean;
  /** select / multiselect: the values and their titles */
  choices?: ElicitationEnumOption[];
  /** string `format` hint (`email`, `uri`, `date`, `date-time`, ...) */
  format?: string;
  default?: ElicitationValue;
  schema: ElicitationProperty;
}

/** The fields of `schema`, in property order. */
export function elicitationFields(schema: ElicitationSchema): ElicitationField[] {
  const props = isObj(schema?.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(props).map(([name, prop]) => {
    const field: ElicitationField = {
      name,
      label: prop.title ?? name,
      kind: kindOf(prop),
      required: required.has(name),
      schema: prop,
    };
    if (prop.description) field.description = prop.description;
    const choices = choicesOf(prop);
    if (choices) field.choices = choices;
    if (prop.type === 'string' && typeof prop.format === 'string') field.format = prop.format;
    const d: unknown = 'default' in prop ? prop.default : undefined;
    if (isValue(d)) field.default = d;
    return field;
  });
}

function kindOf(p: ElicitationProperty): ElicitationField['kind'] {
  switch (p.type) {
    case 'string':
      return choicesOf(p) ? 'select' : 'string';
    case 'number':
    case 'integer':
    case 'boolean':
      return p.type;
    case 'array':
      return 'multiselect';
    default:
      return 'unknown';
  }
}

function choicesOf(p: ElicitationProperty): ElicitationEnumOption[] | undefined {
  if (p.type === 'string') {
    if (Array.isArray(p.oneOf)) return p.oneOf;
    if (Array.isArray(p.enum)) return p.enum.map((v) => ({ const: v, title: v }));
  }
  if (p.type === 'array' && isObj(p.items)) {
    const items = p.items;
    if ('anyOf' in items && Array.isArray(items.anyOf)) return items.anyOf;
    if ('enum' in items && Array.isArray(items.enum)) return items.enum.map((v) => ({ const: v, title: v }));
  }
  return undefined;
}

function isValue(v: unknown): v is ElicitationValue {
  return (
    typeof v === 'string' ||
    (typeof v === 'number' && Number.isFinite(v)) ||
    typeof v === 'boolean' ||
    (Array.isArray(v) && v.every((x) => typeof x === 'string'))
  );
}

/** Why one field's value does not fit its schema, or `undefined` when it does. */
export function fieldProblem(field: ElicitationField, value: unknown): string | undefined {
  const p = field.schema;
  switch (field.kind) {
    case 'string':
    case 'select':
      return p.type === 'string' ? stringProblem(field, p, value) : undefined;
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a ${field.kind}`;
      if (field.kind === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      const min = 'minimum' in p ? p.minimum : undefined;
      const max = 'maximum' in p ? p.maximum : undefined;
      if (typeof min === 'number' && value < min) return `must be at least ${min}`;
      if (typeof max === 'number' && value > max) return `must be at most ${max}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'multiselect':
      return multiProblem(field, value);
    default:
      return `has a property type this client does not know (${JSON.stringify(p.type)})`;
  }
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

function stringProblem(
  field: ElicitationField,
  p: ElicitationProperty & { type: 'string' },
  value: unknown,
): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (field.choices && !field.choices.some((c) => c.const === value))
    return `must be one of ${field.choices.map((c) => JSON.stringify(c.const)).join(', ')}`;
  if (typeof p.minLength === 'number' && value.length < p.minLength)
    return `must have at least ${p.minLength} characters`;
  if (typeof p.maxLength === 'number' && value.length > p.maxLength)
    return `must have at most ${p.maxLength} characters`;
  if (typeof p.pattern === 'string') {
    let re: RegExp | undefined;
    try {
      re = new RegExp(p.pattern, 'u');
    } catch {
      re = undefined; // a pattern this engine cannot read is not held against the answer
    }
    if (re && !re.test(value)) return `must match ${p.pattern}`;
  }
  const format = field.format ? FORMATS[field.format] : undefined;
  if (format && !format.test(value)) return `must be a valid ${field.format}`;
  return undefined;
}

function multiProblem(field: ElicitationField, value: unknown): string | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return 'must be a list of strings';
  const p = field.schema;
  const offered = new Set((field.choices ?? []).map((c) => c.const));
  const bad = value.find((v) => !offered.has(v));
  if (bad !== undefined) return `offers no ${JSON.stringify(bad)}`;
  const min = 'minItems' in p ? p.minItems : undefined;
  const max = 'maxItems' in p ? p.maxItems : undefined;
  if (typeof min === 'number' && value.length < min) return `needs at least ${min} choices`;
  if (typeof max === 'number' && value.length > max) return `takes at most ${max} choices`;
  return undefined;
}

/** The outcome of {@link validateElicitationContent}. */
export type ElicitationValidation =
  { ok: true; content: Record<string, ElicitationValue> } | { ok: false; problems: string[] };

/**
 * Checks form content against the requested schema, per field type: every required field
 * answered, every answered field of the right type and within its limits, no field the form did
 * not ask for (ACP-ALL-ELIC-07). For clients before answering and agents on receipt.
 */
export function validateElicitationContent(schema: ElicitationSchema, content: unknown): ElicitationValidation {
  if (!isObj(content)) return { ok: false, problems: ['content: must be an object'] };
  const fields = elicitationFields(schema);
  const known = new Set(fields.map((f) => f.name));
  const problems: string[] = [];
  for (const name of Object.keys(content)) if (!known.has(name)) problems.push(`${name}: is not a field of the form`);
  const out: Record<string, ElicitationValue> = {};
  for (const f of fields) {
    const v = content[f.name];
    if (v === undefined) {
      if (f.required) problems.push(`${f.name}: is required`);
      continue;
    }
    const problem = fieldProblem(f, v);
    if (problem) problems.push(`${f.name}: ${problem}`);
    else if (isValue(v)) out[f.name] = v;
  }
  return problems.length ? { ok: false, problems } : { ok: true, content: out };
}

/**
 * Reads a typed-in answer (a `--answer key=value` flag, a terminal prompt) as the field's type:
 * numbers, `true`/`false`/`yes`/`no`, a choice by value or by title, a comma-separated list for a
 * multi select. A value that is not text (from a JSON file) is taken as it is. The result is then
 * checked with {@link fieldProblem}.
 */
export function readFieldAnswer(field: ElicitationField, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  const choice = (s: string): string =>
    field.choices?.find((c) => c.const === s)?.const ??
    field.choices?.find((c) => c.title.toLowerCase() === s.toLowerCase())?.const ??
    s;
  switch (field.kind) {
    case 'number':
    case 'integer':
      return text === '' || Number.isNaN(Number(text)) ? raw : Number(text);
    case 'boolean':
      return /^(true|yes|y|on|1)$/i.test(text) ? true : /^(false|no|n|off|0)$/i.test(text) ? false : raw;
    case 'select':
      return choice(text);
    case 'multiselect':
      return text === '' ? [] : text.split(',').map((s) => choice(s.trim()));
    default:
      return raw;
  }
}
