import { randomInt } from 'node:crypto';
import { isObj, without } from '@acp-kit/protocol/internal';
import { requestIdKey, type CloseInfo, type Transport, type TransportHandlers } from '@acp-kit/protocol/rpc';
import { OwnersLog } from './owners-log.js';

/** Sessions per token owner, shared by every connection of one server. */
export class SessionRegistry {
  /** owner -> session -> how many connections have it open (a shared v2 session counts once) */
  private readonly open = new Map<string, Map<string, number>>();
  /** sessionId -> owner that created or attached it first (never forgotten while the server runs) */
  private readonly ownerOf = new Map<string, string>();

  private readonly ownersLog: OwnersLog | undefined;

  /**
   * @param ownersFile where `ownerOf` is kept across restarts (an append-only log, see
   *   {@link OwnersLog}): without it a restarted server forgets who opened what.
   * @param shared whether several tokens share the agent: then a session with no stored owner
   *   (created before owners were stored, or outside the server) is addressable by none of them,
   *   as if it did not exist; with one token that token sees it.
   */
  constructor(
    readonly maxSessions: number,
    ownersFile?: string,
    private readonly shared = false,
    log?: (line: string) => void,
  ) {
    this.ownersLog = ownersFile ? new OwnersLog(ownersFile, log) : undefined;
    if (this.ownersLog) for (const [id, owner] of this.ownersLog.load()) this.ownerOf.set(id, owner);
  }

  openCount(owner: string): number {
    return this.open.get(owner)?.size ?? 0;
  }
  /** Sessions open across all owners (the `acp.server.sessions` gauge). */
  totalOpen(): number {
    let n = 0;
    for (const sessions of this.open.values()) n += sessions.size;
    return n;
  }
  /** Whether `owner` may address `sessionId`: sessions another token created are invisible. */
  visible(owner: string, sessionId: string): boolean {
    const o = this.ownerOf.get(sessionId);
    return o === undefined ? !this.shared : o === owner;
  }
  /** Whether `sessionId` has a stored owner (any token's). */
  known(sessionId: string): boolean {
    return this.ownerOf.has(sessionId);
  }
  /** Whether some connection of `owner` has `sessionId` open (attaching to it opens nothing new). */
  isOpen(owner: string, sessionId: string): boolean {
    return this.open.get(owner)?.has(sessionId) ?? false;
  }
  add(owner: string, sessionId: string): void {
    if (!this.ownerOf.has(sessionId)) {
      this.ownerOf.set(sessionId, owner);
      this.ownersLog?.add(sessionId, owner, this.ownerOf);
    }
    let counts = this.open.get(owner);
    if (!counts) this.open.set(owner, (counts = new Map()));
    counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
  }
  /** `sessionId` was deleted by its owner: its entry leaves the stored owners (the file stays bounded). */
  forget(owner: string, sessionId: string): void {
    if (this.ownerOf.get(sessionId) !== owner) return;
    this.ownerOf.delete(sessionId);
    this.ownersLog?.remove(sessionId, this.ownerOf);
  }
  remove(owner: string, sessionId: string): void {
    const counts = this.open.get(owner);
    const n = counts?.get(sessionId) ?? 0;
    if (n <= 1) counts?.delete(sessionId);
    else counts?.set(sessionId, n - 1);
  }
}

const ID_CLASSES = ['0123456789', 'abcdef', 'ghijklmnopqrstuvwxyz', 'ABCDEF', 'GHIJKLMNOPQRSTUVWXYZ'];
/** Below this many replaceable characters a look-alike could be a real id (`s1` -> `s7`). */
const MIN_DISGUISED = 8;

/**
 * An id shaped like `id` (same length, each character replaced by a random one of its class: digit,
 * a-f, g-z, A-F, G-Z; others kept) that names no session: asking the agent about it gives the exact
 * answer it gives for a session that does not exist, in the format it expects. `known` ids are
 * never produced; a short id gets a random suffix instead, since a same-shaped one could name a
 * real session (of a third tenant, or unowned) and the request would act on it.
 */
function lookalikeId(id: string, known: (id: string) => boolean): string {
  for (;;) {
    let out = '';
    let replaced = 0;
    for (const ch of id) {
      const c = ID_CLASSES.find((k) => k.includes(ch));
      if (c) replaced++;
      out += c ? c[randomInt(c.length)] : ch;
    }
    if (replaced < MIN_DISGUISED) out = `${id}-${randomInt(2 ** 47).toString(36)}${randomInt(2 ** 47).toString(36)}`;
    if (!known(out)) return out;
  }
}

/** `value` (plain JSON: an answer's result or error) with every occurrence of `from` in its strings and keys replaced by `to`. */
function replaceText(value: unknown, from: string, to: string): unknown {
  return JSON.parse(
    JSON.stringify(value).split(JSON.stringify(from).slice(1, -1)).join(JSON.stringify(to).slice(1, -1)),
  );
}

/**
 * Whether `owner` may open a session rooted at `cwd` (an absolute path as the client sent it):
 * `undefined` if so, else the rule it breaks (a sentence for the client).
 */
export type CwdCheck = (owner: string, cwd: string) => string | undefined;

const OPENING = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);
const SESSION_ADDRESSING = new Set([
  'session/load',
  'session/resume',
  'session/fork',
  'session/prompt',
  'session/cancel',
  'session/close',
  'session/delete',
  'session/set_mode',
  'session/set_model',
  'session/set_config_option',
  // unstable (schema.unstable.json): each names one session, so another token's is disguised too
  'session/archive',
  'session/unarchive',
  'session/status',
  'session/set_title',
]);

/** A request whose answer the guard looks at: what it asked, about which session, and a disguised id to put back. */
interface Watched {
  method: string;
  sessionId?: string;
  disguised?: { fake: string; real: string };
}

/**
 * Wraps the transport a remote connection hands its agent: enforces the session limit and token
 * isolation (a token's client can neither address nor list sessions another token created) without
 * the agent knowing, for in-process and stdio agents alike.
 */
export class GuardedTransport implements Transport {
  private handlers: TransportHandlers | undefined;
  /** request id key -> method, for answers we need to look at; only while one is awaited (an idle connection keeps no empty Map) */
  private watched: Map<string, Watched> | undefined;
  /** sessions this connection holds open */
  readonly sessions = new Set<string>();

  constructor(
    private readonly inner: Transport,
    private readonly owner: string,
    private readonly registry: SessionRegistry,
    private readonly checkCwd?: CwdCheck,
  ) {}

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.inner.start({
      onMessage: (m) => this.inbound(m),
      onInvalidLine: (i) => handlers.onInvalidLine(i),
      onTooDeep: handlers.onTooDeep && ((m, l) => handlers.onTooDeep?.(m, l)),
      onClose: (info) => {
        for (const s of this.sessions) this.registry.remove(this.owner, s);
        handlers.onClose(info);
      },
    });
  }

  private watch(id: unknown, w: Watched): void {
    (this.watched ??= new Map<string, Watched>()).set(requestIdKey(id), w);
  }

  /** The watch on the request `id` answers, taken off (with the map when it was the last). */
  private unwatch(id: unknown): Watched | undefined {
    const watched = this.watched;
    if (!watched) return undefined;
    const key = requestIdKey(id);
    const w = watched.get(key);
    if (w !== undefined) this.watched = without(watched, key);
    return w;
  }

  private refuse(id: unknown, code: number, message: string): void {
    this.inner.send({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private inbound(msg: unknown): void {
    if (isObj(msg) && typeof msg.method === 'string') {
      const p = msg.params;
      const sessionId = isObj(p) && typeof p.sessionId === 'string' ? p.sessionId : undefined;
      const isRequest = 'id' in msg;
      if (
        sessionId !== undefined &&
        SESSION_ADDRESSING.has(msg.method) &&
        !this.registry.visible(this.owner, sessionId)
      ) {
        // another token's session: the agent is asked about a lookalike id that names no session, and
        // its answer goes back with the id put back, byte for byte what a session that does not exist gets
        if (!isRequest) return;
        const fake = lookalikeId(sessionId, (id) => this.registry.known(id));
        this.watch(msg.id, { method: msg.method, disguised: { fake, real: sessionId } });
        this.handlers?.onMessage({ ...msg, params: { ...(p as object), sessionId: fake } });
        return;
      }
      if (isRequest && OPENING.has(msg.method) && this.checkCwd && isObj(p)) {
        const refusal = this.cwdRefusal(p);
        if (refusal) {
          this.inner.send({
            jsonrpc: '2.0',
            id: msg.id,
            error: {
              code: -32602,
              message: `Invalid params: ${refusal.path}: ${refusal.reason}`,
              data: { path: refusal.path },
            },
          });
          return;
        }
      }
      if (
        isRequest &&
        OPENING.has(msg.method) &&
        !(sessionId !== undefined && (this.sessions.has(sessionId) || this.registry.isOpen(this.owner, sessionId)))
      ) {
        if (this.registry.openCount(this.owner) >= this.registry.maxSessions) {
          this.refuse(
            msg.id,
            -32000,
            `session limit reached: this server keeps at most ${this.registry.maxSessions} open sessions per token (acp-kit serve --max-sessions); close one first`,
          );
          return;
        }
      }
      if (
        isRequest &&
        (OPENING.has(msg.method) ||
          msg.method === 'session/close' ||
          msg.method === 'session/archive' ||
          msg.method === 'session/delete' ||
          msg.method === 'session/list')
      ) {
        this.watch(msg.id, { method: msg.method, sessionId });
      }
    }
    this.handlers?.onMessage(msg);
  }

  /** Why the session roots of an opening request are refused (cwd, then each additional directory), if they are. */
  private cwdRefusal(p: Record<string, unknown>): { path: string; reason: string } | undefined {
    const check = this.checkCwd;
    if (!check) return undefined;
    if (typeof p.cwd === 'string') {
      const reason = check(this.owner, p.cwd);
      if (reason) return { path: 'params.cwd', reason };
    }
    const dirs = Array.isArray(p.additionalDirectories) ? p.additionalDirectories : [];
    for (const [i, dir] of dirs.entries()) {
      const reason = typeof dir === 'string' ? check(this.owner, dir) : undefined;
      if (reason) return { path: `params.additionalDirectories[${i}]`, reason };
    }
    return undefined;
  }

  send(message: object): void {
    const m = message;
    if (isObj(m) && !('method' in m) && 'id' in m && this.watched) {
      const w = this.unwatch(m.id);
      if (w?.disguised) {
        // nothing is registered for a disguised request: the answer only goes back with the id put back
        // only the payload: the id stays the exact value it is (a big id must not go through JSON.parse)
        const { fake, real } = w.disguised;
        this.inner.send({
          ...m,
          ...('result' in m ? { result: replaceText(m.result, fake, real) } : {}),
          ...('error' in m ? { error: replaceText(m.error, fake, real) } : {}),
        });
        return;
      }
      if (w) {
        const result = m.result;
        if (isObj(result)) {
          if (OPENING.has(w.method)) {
            const id = typeof result.sessionId === 'string' ? result.sessionId : w.sessionId;
            if (id !== undefined && !this.sessions.has(id)) {
              this.sessions.add(id);
              this.registry.add(this.owner, id);
            }
          } else if (
            // archiving closes the session on the agent (as session/close)
            (w.method === 'session/close' || w.method === 'session/archive') &&
            w.sessionId !== undefined &&
            this.sessions.has(w.sessionId)
          ) {
            this.sessions.delete(w.sessionId);
            this.registry.remove(this.owner, w.sessionId);
          } else if (w.method === 'session/delete' && w.sessionId !== undefined) {
            if (this.sessions.delete(w.sessionId)) this.registry.remove(this.owner, w.sessionId);
            this.registry.forget(this.owner, w.sessionId);
          } else if (w.method === 'session/list' && Array.isArray(result.sessions)) {
            const sessions = result.sessions.filter((s: unknown) => {
              const id = isObj(s) ? s.sessionId : undefined;
              return typeof id !== 'string' || this.registry.visible(this.owner, id);
            });
            message = { ...m, result: { ...result, sessions } };
          }
        }
      }
    }
    this.inner.send(message);
  }

  whenWritable(): Promise<void> {
    return this.inner.whenWritable();
  }
  flush(): Promise<void> {
    return this.inner.flush();
  }
  close(info?: CloseInfo): void {
    this.inner.close(info);
  }
}
