import {
  elicitationFields,
  fieldProblem,
  readFieldAnswer,
  validateElicitationContent,
  type ElicitationField,
} from '@acp-kit/client';
import type { CreateElicitationResponse, ElicitationSchema, ElicitationValue } from '@acp-kit/protocol';

/** One entry of a choice field's list (`value` undefined: leave the field unanswered). */
export interface FormChoice {
  label: string;
  value: ElicitationValue | undefined;
}

/**
 * The chat's terminal form for one form elicitation, one field at a time then a review: text
 * fields are typed (prefilled with their default), choice fields (single and multi selects,
 * booleans) are picked from a list. Each field is read as its type and checked when the user
 * moves on (length, format, bounds, choices), so what reaches the review fits the schema.
 * Pure state: the ink component renders it and feeds it keys.
 */
export interface FormState {
  fields: ElicitationField[];
  /** The field being edited; `fields.length` is the review. */
  step: number;
  /** Text fields: what is typed, per field. */
  text: string[];
  /** Choice fields: the highlighted entry, per field. */
  cursor: number[];
  /** Multi selects: the picked values, per field. */
  picked: Array<Set<string>>;
  /** Answers accepted so far (a field left unanswered has none). */
  content: Record<string, ElicitationValue>;
  /** Why the current field's answer was refused. */
  error?: string;
}

/** The keys the form reads (ink's `Key`, the part used). */
export interface FormKey {
  return?: boolean;
  escape?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  tab?: boolean;
  shift?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
}

/** What a key did: the new state, and the answer when the form is done. */
export interface FormStep {
  state: FormState;
  answer?: CreateElicitationResponse;
}

const isChoiceField = (f: ElicitationField): boolean =>
  f.kind === 'select' || f.kind === 'multiselect' || f.kind === 'boolean';

/** The entries of a choice field; an optional single choice also offers "no answer". */
export function choicesOf(f: ElicitationField): FormChoice[] {
  const list: FormChoice[] =
    f.kind === 'boolean'
      ? [
          { label: 'yes', value: true },
          { label: 'no', value: false },
        ]
      : (f.choices ?? []).map((c) => ({
          label: c.title === c.const ? c.const : `${c.title} (${c.const})`,
          value: c.const,
        }));
  return f.required || f.kind === 'multiselect' ? list : [...list, { label: '(no answer)', value: undefined }];
}

/** A new form for `schema`, defaults prefilled. */
export function startForm(schema: ElicitationSchema): FormState {
  const fields = elicitationFields(schema);
  return {
    fields,
    step: 0,
    text: fields.map((f) => (f.default === undefined || isChoiceField(f) ? '' : String(f.default))),
    cursor: fields.map((f) =>
      Math.max(
        0,
        choicesOf(f).findIndex((c) => c.value === f.default),
      ),
    ),
    picked: fields.map((f) => new Set(Array.isArray(f.default) ? f.default : [])),
    content: {},
  };
}

/** The value the current field would take (`undefined`: no answer), or the reason it is refused. */
function currentValue(s: FormState, f: ElicitationField): { value?: ElicitationValue; problem?: string } {
  let raw: unknown;
  if (f.kind === 'multiselect') raw = [...(s.picked[s.step] ?? [])];
  else if (isChoiceField(f)) raw = choicesOf(f)[s.cursor[s.step] ?? 0]?.value;
  else raw = (s.text[s.step] ?? '') === '' ? undefined : readFieldAnswer(f, s.text[s.step]);
  if (raw === undefined || (Array.isArray(raw) && raw.length === 0 && !f.required)) {
    return f.required ? { problem: 'is required' } : {};
  }
  const problem = fieldProblem(f, raw);
  if (problem) return { problem };
  return isValue(raw) ? { value: raw } : { problem: 'cannot be answered here' };
}

function isValue(v: unknown): v is ElicitationValue {
  return (
    typeof v === 'string' ||
    typeof v === 'number' ||
    typeof v === 'boolean' ||
    (Array.isArray(v) && v.every((x) => typeof x === 'string'))
  );
}

/** Enter on a field: its answer is checked, then the form moves to the next field (or the review). */
function commit(s: FormState): FormState {
  const f = s.fields[s.step];
  if (!f) return s;
  const { value, problem } = currentValue(s, f);
  if (problem) return { ...s, error: `${f.label} ${problem}` };
  const content = { ...s.content };
  if (value === undefined) delete content[f.name];
  else content[f.name] = value;
  return { ...s, content, step: s.step + 1, error: undefined };
}

/** The answer of the review: the accepted content, checked as a whole once more. */
function send(s: FormState, schema: ElicitationSchema): FormStep {
  const checked = validateElicitationContent(schema, s.content);
  if (!checked.ok) return { state: { ...s, error: checked.problems.join('; ') } };
  return { state: s, answer: { action: 'accept', content: checked.content } };
}

/**
 * One key press. Everywhere: Esc cancels (the user dismisses the question), Ctrl-X declines,
 * Shift-Tab goes back a field. On a field Enter moves on; on the review Enter sends, `e` edits
 * from the first field and `d` declines.
 */
export function formKey(s: FormState, schema: ElicitationSchema, input: string, key: FormKey): FormStep {
  if (key.escape) return { state: s, answer: { action: 'cancel' } };
  if (key.ctrl && input === 'x') return { state: s, answer: { action: 'decline' } };
  if (key.tab && key.shift) return { state: { ...s, step: Math.max(0, s.step - 1), error: undefined } };
  const f = s.fields[s.step];
  if (!f) {
    if (key.return) return send(s, schema);
    if (input === 'd') return { state: s, answer: { action: 'decline' } };
    if (input === 'e') return { state: { ...s, step: 0, error: undefined } };
    return { state: s };
  }
  if (key.return) return { state: commit(s) };
  return { state: isChoiceField(f) ? choiceKey(s, f, input, key) : textKey(s, input, key) };
}

function textKey(s: FormState, input: string, key: FormKey): FormState {
  const text = [...s.text];
  const now = text[s.step] ?? '';
  if (key.backspace || key.delete) text[s.step] = now.slice(0, -1);
  else if (key.ctrl && input === 'u') text[s.step] = '';
  else if (key.ctrl || key.meta || !input) return s;
  else text[s.step] = now + input.replace(/[\r\n]+/g, ' ');
  return { ...s, text, error: undefined };
}

function choiceKey(s: FormState, f: ElicitationField, input: string, key: FormKey): FormState {
  const choices = choicesOf(f);
  const n = choices.length;
  if (n === 0) return s;
  const cursor = [...s.cursor];
  const at = cursor[s.step] ?? 0;
  if (key.upArrow) cursor[s.step] = (at + n - 1) % n;
  else if (key.downArrow || key.tab) cursor[s.step] = (at + 1) % n;
  else if (input === ' ' && f.kind === 'multiselect') {
    const picked = s.picked.map((p) => new Set(p));
    const set = picked[s.step] ?? new Set<string>();
    const v = choices[at]?.value;
    if (typeof v === 'string') {
      if (set.has(v)) set.delete(v);
      else set.add(v);
    }
    picked[s.step] = set;
    return { ...s, picked, error: undefined };
  } else if (/^[1-9]$/.test(input) && Number(input) <= n) {
    cursor[s.step] = Number(input) - 1;
    // a single choice by its number is picked at once (as in the permission picker)
    if (f.kind !== 'multiselect') return commit({ ...s, cursor });
  } else return s;
  return { ...s, cursor, error: undefined };
}

/** How an answer reads on the review and in the feed. */
export function showValue(v: ElicitationValue | undefined): string {
  if (v === undefined) return '(no answer)';
  if (Array.isArray(v)) return v.length ? v.join(', ') : '(none)';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

/** The limits a field states, for its hint line (`3-20 characters`, `1 to 10`, `email`). */
export function fieldHint(f: ElicitationField): string {
  const p = f.schema;
  const parts: string[] = [];
  if (p.type === 'string') {
    if (typeof p.minLength === 'number' || typeof p.maxLength === 'number')
      parts.push(`${p.minLength ?? 0}-${p.maxLength ?? '…'} characters`);
    if (f.format) parts.push(f.format);
  }
  if (p.type === 'number' || p.type === 'integer') {
    parts.push(f.kind);
    const min = 'minimum' in p ? p.minimum : undefined;
    const max = 'maximum' in p ? p.maximum : undefined;
    if (typeof min === 'number' || typeof max === 'number') parts.push(`${min ?? '…'} to ${max ?? '…'}`);
  }
  if (f.kind === 'multiselect') parts.push('Space picks, several allowed');
  if (f.kind === 'unknown') parts.push(`a ${JSON.stringify(p.type)} field this chat cannot show`);
  return parts.join(' · ');
}
