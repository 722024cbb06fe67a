import { randomUUID } from 'node:crypto';

/**
 * A new `Acp-Connection-Id`: a random UUID as one flat string. Node builds `randomUUID()`'s result
 * by concatenation, and V8 keeps it as a tree of ~15 cons strings (about 475 bytes) for as long as
 * the id lives, i.e. as long as the connection; copied through a buffer it is one 56-byte string.
 */
export function newConnectionId(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}
