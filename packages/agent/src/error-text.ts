/** The message of a thrown value, for logs and problem reports. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, ...), else `undefined`. */
export function errnoCode(e: unknown): string | undefined {
  return e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}
