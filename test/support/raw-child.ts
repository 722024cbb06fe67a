import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** A child process spoken to with raw bytes: for tests of what peers do with malformed input. */
export class RawChild {
  readonly child: ChildProcessWithoutNullStreams;
  private buf = '';
  private readonly lines: string[] = [];
  private waiters: Array<() => void> = [];
  stderr = '';

  constructor(script: string, args: string[] = []) {
    this.child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.buf += d;
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        this.lines.push(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
      }
      const w = this.waiters;
      this.waiters = [];
      w.forEach((f) => f());
    });
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (d: string) => (this.stderr += d));
  }

  write(raw: string | Buffer): void {
    this.child.stdin.write(raw);
  }

  send(obj: unknown): void {
    this.write(JSON.stringify(obj) + '\n');
  }

  /**
   * Next line as written (waits up to `ms`: generous, because a child's start-up on a loaded 2-core machine
   * can take seconds; a hang still fails, just later).
   */
  async line(ms = 30_000): Promise<string> {
    const deadline = Date.now() + ms;
    while (this.lines.length === 0) {
      if (Date.now() > deadline) throw new Error(`no line from child within ${ms} ms; stderr: ${this.stderr}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.lines.shift()!;
  }

  /** Next line parsed as JSON (waits up to `ms`). */
  async next(ms = 30_000): Promise<unknown> {
    const line = await this.line(ms);
    try {
      return JSON.parse(line);
    } catch {
      return { nonJsonLine: line };
    }
  }

  /** Reads lines until one matches. */
  async until(pred: (m: any) => boolean, ms = 30_000): Promise<any> {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = await this.next(Math.max(1, deadline - Date.now()));
      if (pred(m)) return m;
    }
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
