// `acp-kit serve` as a real process (bin/acp-kit.js, from dist/), resolved once it prints its
// machine-readable first line; the caller kills it (its `procs` list, in afterEach/afterAll).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/acp-kit.js', import.meta.url));

export interface ServeProcess {
  proc: ChildProcess;
  /** `http://127.0.0.1:PORT/acp` */
  url: string;
  /** `ws://127.0.0.1:PORT/acp` */
  ws: string;
  /** `http://127.0.0.1:PORT/metrics`, with `--metrics-port` */
  metrics?: string;
  /** what it wrote on stderr so far */
  stderr: () => string;
}

export interface ServeProcessOptions {
  /** where the process goes, for the caller to kill */
  procs: ChildProcess[];
  env?: NodeJS.ProcessEnv;
  /** started through `bash -c 'ulimit -n N; exec …'` */
  openFilesLimit?: number;
}

/** `acp-kit serve --port 0 <args>`. */
export function startServe(args: string[], o: ServeProcessOptions): Promise<ServeProcess> {
  const argv = [BIN, 'serve', '--port', '0', ...args];
  const proc =
    o.openFilesLimit === undefined
      ? spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: o.env })
      : spawn(
          'bash',
          ['-c', `ulimit -n ${o.openFilesLimit}; exec ${[process.execPath, ...argv].map((a) => `'${a}'`).join(' ')}`],
          { stdio: ['ignore', 'pipe', 'pipe'], env: o.env },
        );
  o.procs.push(proc);
  let err = '';
  proc.stderr!.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) =>
      resolve({ proc, ...JSON.parse(line), stderr: () => err }),
    );
  });
}
