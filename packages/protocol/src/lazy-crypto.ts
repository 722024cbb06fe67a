/**
 * `node:crypto`, loaded on first use. Loading it costs several ms of an agent's start-up, and no
 * id or hash is needed before `initialize` is answered. Internal (not exported from an entry).
 */
import { createRequire } from 'node:module';

let crypto: typeof import('node:crypto') | undefined;
const load = (): typeof import('node:crypto') =>
  (crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto'));

/** `crypto.randomUUID()`. */
export const randomUUID = (): string => load().randomUUID();

/** `crypto.createHash(algorithm)`. */
export const createHash = (algorithm: string): import('node:crypto').Hash => load().createHash(algorithm);
