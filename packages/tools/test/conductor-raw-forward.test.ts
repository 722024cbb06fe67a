import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// A pass-through component (bench/pass-component.mjs: runComponent with no handlers) over real
// pipes: what no handler wants goes on as the text it came as, so payload numbers JSON cannot hold
// as doubles (ids beyond 2^53, 1e400, 0.1000...1) and the sender's spacing arrive unchanged.
const COMPONENT = fileURLToPath(new URL('../../../bench/pass-component.mjs', import.meta.url));

let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => child?.kill());

function start(): { send(line: string): void; next(): Promise<string> } {
  const c = spawn(process.execPath, [COMPONENT], { stdio: 'pipe' });
  child = c;
  const lines: string[] = [];
  const waiting: Array<(l: string) => void> = [];
  createInterface({ input: c.stdout }).on('line', (l) => {
    const w = waiting.shift();
    if (w) w(l);
    else lines.push(l);
  });
  return {
    send: (line) => c.stdin.write(line + '\n'),
    next: () => {
      const l = lines.shift();
      return l !== undefined ? Promise.resolve(l) : new Promise((r) => waiting.push(r));
    },
  };
}

describe('pass-through component forwards unhandled payloads as received text', () => {
  it('a proxy/successor notification from the agent side reaches the editor side with its params byte for byte', async () => {
    const c = start();
    const inner = '{ "sessionId" : "s", "n": 12345678901234567890, "x": 1e400, "t": "a\\u00e9\\"}" }';
    c.send(`{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"session/update","params":${inner}}}`);
    expect(await c.next()).toBe(`{"jsonrpc":"2.0","method":"session/update","params":${inner}}`);
  });

  it("a request from the editor side goes up wrapped and its answer comes back with the result's text and the exact id", async () => {
    const c = start();
    const params = '{"big": 1e400, "list": [ 1, 2 ]}';
    c.send(`{"jsonrpc":"2.0","id":12345678901234567890,"method":"_x/y","params":${params}}`);
    const up = await c.next();
    const id = /^\{"jsonrpc":"2\.0","id":(\d+),/.exec(up)?.[1];
    expect(up).toBe(
      `{"jsonrpc":"2.0","id":${id},"method":"proxy/successor","params":{"method":"_x/y","params":${params}}}`,
    );
    const result = '{ "v" : 0.10000000000000000001 }';
    c.send(`{"jsonrpc":"2.0","id":${id},"result":${result}}`);
    expect(await c.next()).toBe(`{"jsonrpc":"2.0","id":12345678901234567890,"result":${result}}`);
  });

  it('malformed input still gets the parse error it gets today, and the component goes on', async () => {
    const c = start();
    c.send('{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"x","params":{"a":01}}}');
    const reply: unknown = JSON.parse(await c.next());
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    c.send('{"jsonrpc":"2.0","method":"proxy/successor","params":{"method":"x","params":{"a":1}}}');
    expect(await c.next()).toBe('{"jsonrpc":"2.0","method":"x","params":{"a":1}}');
  });
});
