/**
 * Whether PostgreSQL `text` can hold a session id: never one with a NUL. Such an id names no stored
 * session (as in the JSONL store, whose file names cannot hold it either): the store and the
 * cluster's leases answer it as unknown instead of failing with PostgreSQL's own error.
 */
export function isStorableSessionId(sessionId: string): boolean {
  return !sessionId.includes('\u0000');
}
