export type AnyRec = Record<string, unknown>;

/** `v` when it is a JSON object: the page shows whatever a capture holds, well-formed or not. */
export function rec(v: unknown): AnyRec | undefined {
  return isRec(v) ? v : undefined;
}

export function isRec(v: unknown): v is AnyRec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The elements of `v` when it is an array, else none. */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
