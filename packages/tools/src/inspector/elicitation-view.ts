import { isObj } from '@acp-kit/protocol/internal';
import type { ElicitationFieldView, ElicitationView } from './api-types.js';

/**
 * An elicitation/create and its answer as the inspector shows them, read loosely from the wire
 * (the inspector displays what was sent, valid or not): the form's fields with their types,
 * required marks and defaults, or the URL and its host; the answer's action and content.
 */
export function elicitationView(
  params: Record<string, unknown> | undefined,
  result: Record<string, unknown> | undefined,
  failed: boolean,
  seqs: number[],
): ElicitationView {
  const mode = typeof params?.mode === 'string' ? params.mode : '(none)';
  const url = mode === 'url' && typeof params?.url === 'string' ? params.url : undefined;
  let host: string | undefined;
  try {
    host = url === undefined ? undefined : new URL(url).host;
  } catch {
    host = undefined;
  }
  const action = failed ? 'error' : typeof result?.action === 'string' ? result.action : 'pending';
  return {
    kind: 'elicitation',
    key: `elicitation:${seqs[0] ?? 0}`,
    mode,
    message: typeof params?.message === 'string' ? params.message : '',
    fields: mode === 'form' ? fieldsOf(params?.requestedSchema) : [],
    url,
    host,
    action,
    content: result?.content,
    seqs,
  };
}

function fieldsOf(schema: unknown): ElicitationFieldView[] {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, p]) => {
    const prop = isObj(p) ? p : {};
    const items = isObj(prop.items) ? prop.items : {};
    const list = Array.isArray(prop.enum) ? prop.enum : Array.isArray(items.enum) ? items.enum : undefined;
    const one = Array.isArray(prop.oneOf) ? prop.oneOf : Array.isArray(items.anyOf) ? items.anyOf : undefined;
    const choices = list ?? one?.map((o) => (isObj(o) ? o.const : o));
    return {
      name,
      label: typeof prop.title === 'string' ? prop.title : name,
      type: typeof prop.type === 'string' ? prop.type : JSON.stringify(prop.type ?? null),
      required: required.has(name),
      default: prop.default,
      choices: choices?.map((c) => String(c)),
    };
  });
}
