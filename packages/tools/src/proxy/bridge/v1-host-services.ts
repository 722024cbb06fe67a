import { type WireCodec, AcpError, Methods } from '@acp-kit/protocol';
import type { RequestContext } from '@acp-kit/protocol/rpc';
import { FileSystemSandbox, type FileSystemSandboxOptions, TerminalManager } from '@acp-kit/client';

/** The roots a session was opened with (what `fs/*` and `terminal/*` are confined to). */
export interface SessionRoots {
  cwd: string;
  additionalDirectories: readonly string[];
}

/**
 * The v1 client services a v2 editor no longer offers (`fs/*`, `terminal/*`), served by the
 * bridge itself for a v1 agent: the sandboxed services of the client runtime, rooted at each
 * session's cwd and additional directories, so the agent works as with a v1 editor but never
 * outside the roots the editor granted.
 */
export class V1HostServices {
  private readonly fs = new Map<string, FileSystemSandbox>();
  private readonly terminals = new Map<string, TerminalManager>();

  constructor(
    private readonly codec: WireCodec,
    private readonly rootsOf: (sessionId: string) => SessionRoots | undefined,
    private readonly fsOptions: FileSystemSandboxOptions = {},
  ) {}

  /** Whether `method` (neutral) is one of the services. */
  static serves(method: string): boolean {
    return method.startsWith('fs/') || method.startsWith('terminal/');
  }

  /** Answers one decoded-and-encoded request of the agent (wire in, wire out). */
  async handle(method: string, params: unknown, ctx: RequestContext): Promise<unknown> {
    const c = this.codec;
    switch (method) {
      case Methods.fsReadTextFile: {
        const p = c.decodeParams(Methods.fsReadTextFile, params);
        return c.encodeResult(Methods.fsReadTextFile, await this.sandbox(p.sessionId).readTextFile(p));
      }
      case Methods.fsWriteTextFile: {
        const p = c.decodeParams(Methods.fsWriteTextFile, params);
        return c.encodeResult(Methods.fsWriteTextFile, await this.sandbox(p.sessionId).writeTextFile(p));
      }
      case Methods.terminalCreate: {
        const p = c.decodeParams(Methods.terminalCreate, params);
        return c.encodeResult(Methods.terminalCreate, this.terminalsOf(p.sessionId).create(p));
      }
      case Methods.terminalOutput: {
        const p = c.decodeParams(Methods.terminalOutput, params);
        return c.encodeResult(Methods.terminalOutput, this.terminalsOf(p.sessionId).output(p.terminalId, p.sessionId));
      }
      case Methods.terminalWaitForExit: {
        const p = c.decodeParams(Methods.terminalWaitForExit, params);
        return c.encodeResult(
          Methods.terminalWaitForExit,
          await this.terminalsOf(p.sessionId).waitForExit(p.terminalId, ctx.signal, p.sessionId),
        );
      }
      case Methods.terminalKill: {
        const p = c.decodeParams(Methods.terminalKill, params);
        await this.terminalsOf(p.sessionId).kill(p.terminalId, p.sessionId);
        return c.encodeResult(Methods.terminalKill, {});
      }
      case Methods.terminalRelease: {
        const p = c.decodeParams(Methods.terminalRelease, params);
        await this.terminalsOf(p.sessionId).release(p.terminalId, p.sessionId);
        return c.encodeResult(Methods.terminalRelease, {});
      }
      default:
        throw AcpError.methodNotFound(method);
    }
  }

  /** A session ended: its terminals are released (their processes killed). */
  async releaseSession(sessionId: string): Promise<void> {
    this.fs.delete(sessionId);
    const t = this.terminals.get(sessionId);
    this.terminals.delete(sessionId);
    await t?.releaseAll();
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.terminals.keys()].map((id) => this.releaseSession(id)));
  }

  private roots(sessionId: string): SessionRoots {
    const r = this.rootsOf(sessionId);
    if (!r) throw AcpError.sessionNotFound(sessionId);
    return r;
  }

  private sandbox(sessionId: string): FileSystemSandbox {
    let s = this.fs.get(sessionId);
    if (!s) {
      s = FileSystemSandbox.forSession(this.roots(sessionId), this.fsOptions);
      this.fs.set(sessionId, s);
    }
    return s;
  }

  private terminalsOf(sessionId: string): TerminalManager {
    let t = this.terminals.get(sessionId);
    if (!t) {
      const r = this.roots(sessionId);
      t = new TerminalManager({ roots: [r.cwd, ...r.additionalDirectories] });
      this.terminals.set(sessionId, t);
    }
    return t;
  }
}
