/**
 * The chat's terminal form (src/cli/ui/elicitation-form.ts), key by key as the ink component
 * feeds it: defaults prefilled, each field read as its type and refused with the reason when it
 * does not fit (length, format, bounds, required), choices by list, the review, and decline and
 * cancel from anywhere. The tmux test drives the same form on a real terminal.
 */
import { describe, expect, it } from 'vitest';
import type { ElicitationSchema } from '@acp-kit/protocol';
import { formKey, startForm, type FormKey, type FormState } from '../src/cli/ui/elicitation-form.js';

const schema: ElicitationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 5 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 1, maximum: 120, default: 30 },
    ok: { type: 'boolean', default: false },
    db: { type: 'string', enum: ['pg', 'sqlite'] },
    tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, minItems: 1 },
  },
  required: ['name', 'age', 'db', 'tags'],
};

/** Feeds keys: a string is typed text, an object is one special key. */
function feed(s: FormState, ...keys: Array<string | FormKey>) {
  let state = s;
  for (const k of keys) {
    const step = typeof k === 'string' ? formKey(state, schema, k, {}) : formKey(state, schema, '', k);
    state = step.state;
    if (step.answer) return { state, answer: step.answer };
  }
  return { state, answer: undefined };
}
const ENTER = { return: true };
const BACKSPACE = { backspace: true };

describe('chat elicitation form', () => {
  it('refuses a field that does not fit, with the reason, and stays on it', () => {
    let r = feed(startForm(schema), ENTER);
    expect(r.state.step).toBe(0);
    expect(r.state.error).toBe('Name is required');
    r = feed(r.state, 'abcdef', ENTER);
    expect(r.state.error).toBe('Name must have at most 5 characters');
    r = feed(r.state, BACKSPACE, BACKSPACE, BACKSPACE, BACKSPACE, BACKSPACE, ENTER);
    expect(r.state.error).toBe('Name must have at least 2 characters');
    r = feed(r.state, 'b', ENTER, 'not-an-email', ENTER);
    expect(r.state.step).toBe(1);
    expect(r.state.error).toBe('email must be a valid email');
  });

  it('prefills defaults, reads numbers and bounds, picks choices, reviews and sends typed content', () => {
    let r = feed(startForm(schema), 'ab', ENTER, ENTER); // email optional: left empty
    expect(r.state.text[2]).toBe('30');
    r = feed(r.state, BACKSPACE, BACKSPACE, '200', ENTER);
    expect(r.state.error).toBe('age must be at most 120');
    r = feed(r.state, BACKSPACE, BACKSPACE, BACKSPACE, '42', ENTER);
    // boolean: the default (no) is highlighted; Up picks yes
    r = feed(r.state, { upArrow: true }, ENTER);
    // select by number picks at once
    r = feed(r.state, '2');
    expect(r.state.step).toBe(5);
    r = feed(r.state, ENTER);
    expect(r.state.error).toBe('tags needs at least 1 choices');
    r = feed(r.state, ' ', { downArrow: true }, { downArrow: true }, ' ', ENTER);
    expect(r.state.step).toBe(6); // the review
    const sent = feed(r.state, ENTER);
    expect(sent.answer).toEqual({
      action: 'accept',
      content: { name: 'ab', age: 42, ok: true, db: 'sqlite', tags: ['a', 'c'] },
    });
  });

  it('Shift-Tab goes back a field; e edits from the start on the review', () => {
    let r = feed(startForm(schema), 'ab', ENTER);
    r = feed(r.state, { tab: true, shift: true });
    expect(r.state.step).toBe(0);
    expect(r.state.text[0]).toBe('ab');
    r = feed(r.state, ENTER, ENTER, ENTER, ENTER, '1', ' ', ENTER);
    expect(r.state.step).toBe(6);
    expect(feed(r.state, 'e').state.step).toBe(0);
  });

  it('declines (Ctrl-X, or d on the review) and cancels (Esc) from anywhere', () => {
    expect(feed(startForm(schema), 'a', { ctrl: true }).answer).toBeUndefined();
    expect(formKey(startForm(schema), schema, 'x', { ctrl: true }).answer).toEqual({ action: 'decline' });
    expect(feed(startForm(schema), 'ab', { escape: true }).answer).toEqual({ action: 'cancel' });
    const review = feed(startForm(schema), 'ab', ENTER, ENTER, ENTER, ENTER, '1', ' ', ENTER).state;
    expect(feed(review, 'd').answer).toEqual({ action: 'decline' });
  });
});
