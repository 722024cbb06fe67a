import type { ServerResponse } from 'node:http';

/** An event of a stream: its id and its JSON-RPC message text. */
interface StreamEvent {
  id: number;
  text: string;
}

/** Why a resume (`Last-Event-ID`) cannot be served: the status and the sentence the client gets. */
export interface ResumeRefusal {
  status: number;
  message: string;
}

/**
 * One SSE stream of a Streamable HTTP connection (the connection stream or a session-scoped one),
 * as the durable resumable HTTP draft wants it: every event carries an `id:` (1, 2, 3... per
 * stream), the events handed to a receiver stay in a replay window bounded by `windowBytes`, and
 * a client that lost its stream reconnects with `Last-Event-ID` and gets what followed that id,
 * once each. Events sent while no receiver is attached are held (the connection bounds them).
 */
export class SseStream {
  /** The attached receiver, if any. */
  res: ServerResponse | undefined;
  /** Events kept from {@link head} on: the sent ones still in the window, then the unsent ones. */
  private events: StreamEvent[] = [];
  /** Index of the oldest kept event (the array is compacted now and then, not shifted per event). */
  private head = 0;
  private nextId = 1;
  /** Highest id handed to a receiver. */
  private sentUpTo = 0;
  /** Bytes of the kept events already sent (what the window bounds). */
  private sentBytes = 0;
  /** Bytes of the kept events not sent yet (what the connection's buffer limit counts). */
  heldBytes = 0;
  /** Runs out when a detached stream was not resumed in time. */
  detachTimer: NodeJS.Timeout | undefined;

  constructor(private readonly windowBytes: number) {}

  /** Adds a message; returns its SSE event when a receiver takes it now, else holds it. */
  append(text: string): string | undefined {
    const event = { id: this.nextId++, text };
    this.events.push(event);
    if (!this.res) {
      this.heldBytes += text.length;
      return undefined;
    }
    this.markSent(event);
    return format(event);
  }

  /**
   * The events a receiver attached now gets first: those after `lastEventId` when the client
   * resumes, else those not sent yet; or why that resume cannot be served.
   */
  replayFrom(lastEventId: string | undefined): string | ResumeRefusal {
    let after = this.sentUpTo;
    if (lastEventId !== undefined) {
      const n = /^\d+$/.test(lastEventId) ? Number(lastEventId) : NaN;
      if (!Number.isSafeInteger(n) || n >= this.nextId)
        return {
          status: 400,
          message: `Last-Event-ID ${JSON.stringify(lastEventId)} was never sent on this stream (its last event id is ${this.nextId - 1})`,
        };
      const oldest = this.events[this.head]?.id ?? this.nextId;
      if (n < oldest - 1) {
        return {
          status: 410,
          message: `Last-Event-ID ${n} is older than this stream's replay window (it keeps events ${oldest}-${this.nextId - 1}): events ${n + 1}-${oldest - 1} cannot be sent again; resume the session (session/resume) instead`,
        };
      }
      after = n;
    }
    let out = '';
    // the window may drop events while the held ones are marked sent: walk a copy
    for (const event of this.events.slice(this.head)) {
      if (event.id <= after) continue;
      if (event.id > this.sentUpTo) {
        this.heldBytes -= event.text.length;
        this.markSent(event);
      }
      out += format(event);
    }
    return out;
  }

  /** The held (unsent) messages, taken out of this stream (it is being given up). */
  takeHeld(): string[] {
    const held = this.events
      .slice(this.head)
      .filter((e) => e.id > this.sentUpTo)
      .map((e) => e.text);
    this.events = [];
    this.head = 0;
    this.heldBytes = 0;
    this.sentBytes = 0;
    return held;
  }

  private markSent(event: StreamEvent): void {
    this.sentUpTo = event.id;
    this.sentBytes += event.text.length;
    // the window drops the oldest sent events first; unsent ones are never dropped here
    while (this.sentBytes > this.windowBytes) {
      const first = this.events[this.head];
      if (first === undefined || first.id > this.sentUpTo) break;
      this.head++;
      this.sentBytes -= first.text.length;
    }
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}

function format(event: StreamEvent): string {
  return `id: ${event.id}\ndata: ${event.text}\n\n`;
}
