import type {
  PgClient as Client,
  PgClientConfig as ClientConfig,
  PgNotification as Notification,
} from '../store/postgres/pg-types.js';
import { INBOX_CHANNEL, UPDATES_CHANNEL } from './schema.js';

/** What the instance's LISTEN connection wakes. */
export interface WakeupHandlers {
  /** New rows of a session (`<namespace>/<sessionId>`), up to `seq` at least. */
  updates(key: string, seq: number): void;
  /** The inbox moved for this instance: a request for it (`to`) or an answer to one of its own (`done`). */
  inbox(kind: 'to' | 'done'): void;
  /** The LISTEN connection was (re)established: what was notified meanwhile must be polled. */
  resumed(): void;
  log(line: string): void;
}

/**
 * The one LISTEN connection of an instance (`LISTEN acp_updates; LISTEN acp_inbox`). Notifications
 * only wake readers up: the tables are the source of truth, so when this connection drops, the
 * periodic polls deliver everything and it is re-established after `retryMs`.
 */
export class Wakeups {
  private client: Client | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** The backend pid of the current LISTEN connection (tests end it with pg_terminate_backend). */
  pid: number | undefined;

  constructor(
    private readonly connect: () => Promise<Client>,
    private readonly instanceId: string,
    private readonly handlers: WakeupHandlers,
    private readonly retryMs: number,
  ) {}

  /** Connects and listens; resolves once listening (or once the first try failed: it retries). */
  async start(): Promise<void> {
    await this.open();
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    let client: Client | undefined;
    try {
      client = await this.connect();
      const c = client;
      c.on('notification', (n) => this.onNotification(n));
      c.on('error', (e) => this.lost(c, e.message));
      c.on('end', () => this.lost(c, 'connection ended'));
      await c.query(`LISTEN ${UPDATES_CHANNEL}; LISTEN ${INBOX_CHANNEL}`);
      const r = await c.query<{ pid: number }>('select pg_backend_pid() as pid');
      this.pid = r.rows[0]?.pid;
      if (this.stopped) {
        await c.end().catch(() => undefined);
        return;
      }
      this.client = c;
      this.handlers.resumed();
    } catch (e) {
      if (client) client.end().catch(() => undefined);
      this.handlers.log(
        `LISTEN connection failed (${e instanceof Error ? e.message : String(e)}); polling meanwhile, retrying in ${this.retryMs} ms`,
      );
      this.retry();
    }
  }

  private lost(c: Client, why: string): void {
    if (this.client !== c) return;
    this.client = undefined;
    this.pid = undefined;
    c.end().catch(() => undefined);
    if (this.stopped) return;
    this.handlers.log(`LISTEN connection lost (${why}); polling meanwhile, reconnecting in ${this.retryMs} ms`);
    this.retry();
  }

  private retry(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.open();
    }, this.retryMs);
    this.timer.unref();
  }

  private onNotification(n: Notification): void {
    const payload = n.payload ?? '';
    if (n.channel === UPDATES_CHANNEL) {
      const i = payload.lastIndexOf(':');
      if (i > 0) this.handlers.updates(payload.slice(0, i), Number(payload.slice(i + 1)));
    } else if (n.channel === INBOX_CHANNEL) {
      if (payload === `to:${this.instanceId}`) this.handlers.inbox('to');
      else if (payload === `done:${this.instanceId}`) this.handlers.inbox('done');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}

export type { ClientConfig };
