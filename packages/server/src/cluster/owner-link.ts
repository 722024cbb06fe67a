import { randomUUID } from 'node:crypto';
import { codecFor, AcpError } from '@acp-kit/protocol';
import { isObj } from '@acp-kit/protocol/internal';
import { JsonRpcPeer, type Transport } from '@acp-kit/protocol/rpc';
import type { AgentHost } from '../server.js';
import { memoryTransportPair } from './memory-transport.js';
import { PERMISSION, PERMISSION_DONE, type ControlRow } from './control.js';

/** How a follower opened the session (what the owner resumes it with: the same setup is required to share it). */
export interface FollowerSetup {
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: unknown[];
}

/** What an {@link OwnerLink} needs from its instance. */
export interface OwnerLinkContext {
  namespace: string;
  sessionId: string;
  /** Starts this instance's agent on `transport` (a connection of the session's token). */
  open(transport: Transport): AgentHost;
  /** Appends a control row (permission questions) to the session's updates, in order with the runtime's. */
  publish(row: ControlRow): Promise<void>;
  /** The link ended (last follower gone, or the agent closed it). */
  ended(): void;
  log(line: string): void;
}

interface Question {
  resolve(result: unknown): void;
}

/**
 * The remote followers of a session, as one client connection of the owner's agent: it resumes
 * the session like any attached client (so it joins the one runtime, its prompt queue and its
 * permission questions), carries the followers' requests to it, and puts the permission
 * questions it is asked into the table for the followers. It lives while some follower is attached.
 */
export class OwnerLink {
  private readonly peer: JsonRpcPeer;
  private readonly host: AgentHost;
  private setup: Promise<unknown> | undefined;
  private setupKey: string | undefined;
  /** followerId -> the instance it is on */
  private readonly followers = new Map<string, string>();
  private readonly questions = new Map<string, Question>();
  private closing = false;
  /** Resolves once the link ended (its session closed here, its writes persisted). */
  readonly ended: Promise<void>;

  constructor(private readonly ctx: OwnerLinkContext) {
    const [mine, theirs] = memoryTransportPair();
    this.host = ctx.open(theirs);
    this.peer = new JsonRpcPeer(mine, {});
    this.peer.onRequest('session/request_permission', (params, rc) => this.ask(params, rc.signal));
    this.peer.onOtherRequest((method) => {
      throw AcpError.methodNotFound(method);
    });
    // the link's own copy of the live updates is not needed: followers read the table
    this.peer.onOtherNotification(() => undefined);
    this.ended = this.peer.closed.then(() => {
      for (const q of this.questions.values()) q.resolve(undefined);
      this.ctx.ended();
    });
  }

  /** Whether the link is closing: its session's turn may still be writing its end. */
  get isClosing(): boolean {
    return this.closing;
  }

  /** Followers attached through this link. */
  get followerCount(): number {
    return this.followers.size;
  }

  /**
   * Attaches a follower: the first one resumes the session on the owner's agent (opening it from
   * the store when no local client has it open); later ones must name the same setup.
   */
  async attach(followerId: string, setup: FollowerSetup, instance: string): Promise<unknown> {
    const key = JSON.stringify([setup.cwd, setup.additionalDirectories ?? [], setup.mcpServers ?? []]);
    if (!this.setup) {
      this.setupKey = key;
      this.setup = (async () => {
        await this.peer.request(
          'initialize',
          codecFor(2).encodeParams('initialize', {
            protocolVersion: 2,
            clientCapabilities: {},
            clientInfo: { name: 'acp-kit-cluster', version: '1' },
          }),
        );
        return this.peer.request('session/resume', {
          sessionId: this.ctx.sessionId,
          cwd: setup.cwd,
          additionalDirectories: setup.additionalDirectories ?? [],
          mcpServers: setup.mcpServers ?? [],
        });
      })();
    } else if (this.setupKey !== key) {
      throw AcpError.invalidParams(
        `params: session ${this.ctx.sessionId} is open on another instance with another cwd, additionalDirectories or mcpServers; resume it with the same ones to share it, or close it there first`,
        { path: 'params' },
      );
    }
    const result = await this.setup;
    this.followers.set(followerId, instance);
    return result;
  }

  /** The instances the followers are on. */
  get followerInstances(): Set<string> {
    return new Set(this.followers.values());
  }

  /** Detaches every follower on `instance` (it died without detaching them). */
  async detachInstance(instance: string): Promise<void> {
    for (const [id, on] of [...this.followers]) if (on === instance) this.followers.delete(id);
    if (this.followers.size === 0) await this.close();
  }

  /** A follower left; the last one closes the link (the session stays open while local clients have it). */
  async detach(followerId: string): Promise<void> {
    this.followers.delete(followerId);
    if (this.followers.size === 0) await this.close();
  }

  /** A follower's request for the session (prompt, config), answered by the owner's agent. */
  request(method: string, params: unknown): Promise<unknown> {
    return this.peer.request(method, params);
  }

  /** A follower's notification for the session (`session/cancel`). */
  notify(method: string, params: unknown): void {
    this.peer.notify(method, params);
  }

  /** A follower's answer to a permission question; `false` when it was already settled. */
  answer(questionId: string, result: unknown): boolean {
    const q = this.questions.get(questionId);
    if (!q) return false;
    q.resolve(result);
    return true;
  }

  /** Puts a question to the followers (through the table) and waits for the first answer or the withdrawal. */
  private ask(params: unknown, signal: AbortSignal): Promise<unknown> {
    const questionId = randomUUID();
    return new Promise((resolve, reject) => {
      let settled = false;
      const done = (why: 'answered' | 'withdrawn'): void => {
        settled = true;
        this.questions.delete(questionId);
        signal.removeEventListener('abort', onAbort);
        void this.ctx
          .publish({ sessionUpdate: PERMISSION_DONE, questionId, why })
          .catch((e: Error) =>
            this.ctx.log(`could not publish the end of permission question ${questionId}: ${e.message}`),
          );
      };
      const onAbort = (): void => {
        if (settled) return;
        done('withdrawn');
        reject(AcpError.cancelled('the permission question was answered elsewhere or withdrawn'));
      };
      this.questions.set(questionId, {
        resolve: (result) => {
          if (settled) return;
          done('answered');
          if (result === undefined) reject(AcpError.cancelled('no follower is left to answer'));
          else resolve(result);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      const request = isObj(params) ? params : {};
      this.ctx.publish({ sessionUpdate: PERMISSION, questionId, request }).catch((e: Error) => {
        this.ctx.log(`could not publish permission question ${questionId}: ${e.message}`);
      });
    });
  }

  /** Closes the session on this link and ends it. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    try {
      if (this.setup) {
        await this.setup.catch(() => undefined);
        await this.peer.request('session/close', { sessionId: this.ctx.sessionId }).catch(() => undefined);
      }
    } finally {
      await this.host.shutdown(1000).catch(() => undefined);
      this.peer.close({ reason: 'the cluster link closed' });
    }
  }

  /** Ends at once (the instance stops). */
  kill(): void {
    this.host.close();
    this.peer.close({ reason: 'the instance stopped' });
  }
}
