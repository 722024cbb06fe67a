import type { ErrorObject } from 'ajv';
import type { ValidationFailure } from './types.js';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Joins a path prefix and a key or index into a readable JSON path: `a.b`, `a[0]`, `a["x-y"]`. */
export function joinPath(prefix: string, key: string | number): string {
  if (typeof key === 'number') return `${prefix}[${key}]`;
  if (IDENT.test(key)) return prefix ? `${prefix}.${key}` : key;
  return `${prefix}[${JSON.stringify(key)}]`;
}

/** Ajv's `instancePath` (JSON pointer, `/content/0/type`) as a readable path under `prefix`. */
export function pointerToPath(prefix: string, pointer: string): string {
  if (!pointer) return prefix;
  let path = prefix;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^(0|[1-9][0-9]*)$/.test(key) ? joinPath(path, Number(key)) : joinPath(path, key);
  }
  return path;
}

/** Concatenates two readable paths (`params` + `update.content` -> `params.update.content`). */
export function concatPath(prefix: string, path: string): string {
  if (!prefix) return path;
  if (!path) return prefix;
  return path.startsWith('[') ? prefix + path : `${prefix}.${path}`;
}

/**
 * One line for an error message: `prefix.path: message`, e.g.
 * `formatFailure('params', { path: 'update.content.type', message: 'must be string' })`
 * -> `params.update.content.type: must be string`. With an empty path and prefix, just the message.
 */
export function formatFailure(prefix: string, failure: ValidationFailure): string {
  const path = concatPath(prefix, failure.path);
  return path ? `${path}: ${failure.message}` : failure.message;
}

function list(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

/** What one Ajv error expected, in words. */
export function describeError(e: ErrorObject): string {
  const p: Record<string, unknown> = e.params;
  switch (e.keyword) {
    case 'required':
      return `must have required property '${String(p.missingProperty)}'`;
    case 'type':
      return `must be ${String(p.type).replace(/,/g, ' or ')}`;
    case 'enum':
      return `must be equal to one of: ${list(Array.isArray(p.allowedValues) ? p.allowedValues : [])}`;
    case 'const':
      return `must be equal to ${JSON.stringify(p.allowedValue)}`;
    case 'additionalProperties':
      return `must NOT have additional property '${String(p.additionalProperty)}'`;
    case 'anyOf':
    case 'oneOf':
      return e.keyword === 'anyOf'
        ? 'must match one of the allowed shapes'
        : (e.message ?? 'must match exactly one allowed shape');
    default:
      return e.message ?? `must pass "${e.keyword}"`;
  }
}

function depth(e: ErrorObject): number {
  return e.instancePath === '' ? 0 : e.instancePath.split('/').length - 1;
}

/** Wrapper errors that only say "a sub-schema failed"; the sub-schema's own error precedes them. */
function isWrapper(e: ErrorObject | undefined): boolean {
  return e?.keyword === 'if';
}

/**
 * The most useful error of a failed validation run (`allErrors: false`). Ajv stops at the first
 * failing keyword, so the list is the failing chain plus, for each union on it, the errors of
 * every branch tried. Our schema rewrite (`transform.ts`) turns tagged unions into if/then, whose
 * inner error comes first; for the unions left (e.g. `integer | string`), prefer the branch that
 * got deepest into the value, and merge same-place type/const mismatches into one message.
 */
export function pickFailure(errors: readonly ErrorObject[], prefix: string): ValidationFailure {
  let end = errors.length;
  while (end > 1 && isWrapper(errors[end - 1])) end--;
  const last = errors[end - 1];
  // Ajv reports at least one error for a failed run; none means the caller asked about a pass
  if (last === undefined) return { path: prefix, message: 'is not valid' };
  if (
    (last.keyword === 'anyOf' || last.keyword === 'oneOf') &&
    last.params &&
    !('passingSchemas' in last.params && last.params.passingSchemas)
  ) {
    const inner = errors.slice(0, end - 1).filter((e) => !isWrapper(e) && e.instancePath.startsWith(last.instancePath));
    if (inner.length > 0) {
      const deepest = Math.max(...inner.map(depth));
      const [first, ...others] = inner.filter((e) => depth(e) === deepest);
      // the deepest of a non-empty list is one of its elements
      if (first === undefined) throw new Error('pickFailure: no error at the deepest level');
      const ranked = [first, ...others];
      if (ranked.every((e) => e.keyword === 'type' || e.keyword === 'const' || e.keyword === 'enum')) {
        const expected: string[] = [];
        for (const e of ranked) {
          const p: Record<string, unknown> = e.params;
          if (e.keyword === 'type') expected.push(String(p.type).replace(/,/g, ' or '));
          else if (e.keyword === 'const') expected.push(JSON.stringify(p.allowedValue));
          else expected.push(...(Array.isArray(p.allowedValues) ? p.allowedValues : []).map((v) => JSON.stringify(v)));
        }
        return {
          path: pointerToPath(prefix, first.instancePath),
          message: `must be ${[...new Set(expected)].join(' or ')}`,
        };
      }
      // A wrong type at the union's own place says less than an error deeper inside a branch.
      const best = ranked.find((e) => e.keyword !== 'type') ?? first;
      if (best.keyword === 'anyOf' || best.keyword === 'oneOf')
        return pickFailure(errors.slice(0, errors.indexOf(best) + 1), prefix);
      return { path: pointerToPath(prefix, best.instancePath), message: describeError(best) };
    }
  }
  return { path: pointerToPath(prefix, last.instancePath), message: describeError(last) };
}
