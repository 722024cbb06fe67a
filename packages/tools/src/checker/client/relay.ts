import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The program the client under test launches as its agent. It is a pipe, nothing more: it
 * connects to the checker's loopback server, names its case, and copies its stdin to the checker
 * and the checker's lines to its stdout, so that the scripted agent runs inside the checker
 * (one place that sees every byte and judges) while the client still launches a real process
 * and talks to it over real pipes. It ignores SIGINT: the checker sends Ctrl-C to the client's
 * process group to make it cancel, and a terminal's Ctrl-C would not be the agent's to handle.
 */
const RELAY_SOURCE = `// acp-kit check client: relay between the client under test and the checker's scripted agent
import { connect } from 'node:net';
const [port, token] = process.argv.slice(2);
process.on('SIGINT', () => undefined);
const sock = connect({ host: '127.0.0.1', port: Number(port) }, () => {
  sock.write(token + '\\n');
  process.stdin.pipe(sock);
});
sock.pipe(process.stdout);
sock.on('error', (e) => { process.stderr.write('acp-kit check relay: ' + e.message + '\\n'); process.exit(1); });
sock.on('close', () => process.stdout.write('', () => process.exit(0)));
process.stdin.on('end', () => sock.end());
`;

/** Writes the relay script into `dir` and returns its path. */
export function writeRelay(dir: string): string {
  const path = join(dir, 'acp-kit-check-agent.mjs');
  writeFileSync(path, RELAY_SOURCE);
  return path;
}

/** Quotes words as a POSIX shell would read them back (what `--agent "<command line>"` options split). */
export function shellJoin(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
