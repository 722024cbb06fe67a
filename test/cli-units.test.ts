import { describe, expect, it } from 'vitest';
import { joinCommandLine, splitCommandLine } from '../src/cli/split-command-line.js';
import { EXIT_CODE_TABLE, ExitCode, exitCodeForStopReason, exitCodeForTurn } from '../src/cli/exit-codes.js';
import { colorEnabled, stripAnsi } from '../src/cli/style.js';
import { textDiffLines } from '../src/cli/render/diff.js';
import { CliError } from '../src/cli/errors.js';
import { buildProgram } from '../src/cli/program.js';
import { integerFlag } from '../src/cli/options.js';

describe('splitCommandLine', () => {
  it('splits on whitespace', () => {
    expect(splitCommandLine('  node  agent.js --acp\t-v ')).toEqual(['node', 'agent.js', '--acp', '-v']);
  });
  it('keeps single-quoted text literally', () => {
    expect(splitCommandLine(`echo 'a  b' 'c\\d' '$HOME'`)).toEqual(['echo', 'a  b', 'c\\d', '$HOME']);
  });
  it('handles double quotes with escapes', () => {
    expect(splitCommandLine(`run "a \\"quoted\\" word" "x\\y" "\\$v"`)).toEqual([
      'run',
      'a "quoted" word',
      'x\\y',
      '$v',
    ]);
  });
  it('joins adjacent quoted parts into one word and keeps empty words', () => {
    expect(splitCommandLine(`--opt="a b"'c' '' ""`)).toEqual(['--opt=a bc', '', '']);
  });
  it('handles backslash escapes outside quotes', () => {
    expect(splitCommandLine('my\\ agent \\"x')).toEqual(['my agent', '"x']);
  });
  it('rejects unterminated quotes and trailing backslashes', () => {
    expect(() => splitCommandLine(`node 'oops`)).toThrow(/unterminated single quote at position 6/);
    expect(() => splitCommandLine(`node "oops`)).toThrow(/unterminated double quote/);
    expect(() => splitCommandLine('node \\')).toThrow(/trailing backslash/);
  });
  it('round-trips through joinCommandLine', () => {
    const words = ['/usr/bin/node', 'a b', "it's", '', '--x=$y'];
    expect(splitCommandLine(joinCommandLine(words))).toEqual(words);
  });
});

describe('exit codes', () => {
  it('maps every stop reason to a distinct documented code', () => {
    const reasons = ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled', 'error'];
    const codes = reasons.map((r) => exitCodeForStopReason(r));
    expect(codes).toEqual([0, 3, 4, 5, 6, 7]);
    expect(exitCodeForStopReason('_custom')).toBe(ExitCode.TurnError);
    const documented = new Set(EXIT_CODE_TABLE.map(([c]) => c));
    for (const c of Object.values(ExitCode)) expect(documented.has(c)).toBe(true);
  });
  it('turns a success after a rejected permission into 8, but keeps real failures', () => {
    expect(exitCodeForTurn('end_turn', 0)).toBe(0);
    expect(exitCodeForTurn('end_turn', 1)).toBe(8);
    expect(exitCodeForTurn('cancelled', 2)).toBe(8);
    expect(exitCodeForTurn('refusal', 1)).toBe(5);
  });
});

describe('colour and diff helpers', () => {
  it('honours NO_COLOR and FORCE_COLOR', () => {
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
  });
  it('strips escape sequences from agent text', () => {
    expect(stripAnsi('\u001b[31mred\u001b[0m \u001b]0;title\u0007x')).toBe('red x');
  });
  it('renders a new-file diff with relative paths', () => {
    const lines = textDiffLines({ type: 'diff', path: '/w/notes.txt', oldText: null, newText: 'hello\n' }, '/w');
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual([
      'header:new file notes.txt',
      'hunk:@@ -0,0 +1,1 @@',
      'add:+hello',
    ]);
  });
});

describe('integer flags: one parser, one wording (src/cli/options.ts integerFlag)', () => {
  const never = async (): Promise<number> => {
    throw new Error('the action ran: the flag should have been refused');
  };
  const handlers = { run: never, chat: never, sessionsList: never, sessionsShow: never, agent: never };
  /** Parses `acp-kit ...args` in-process; returns the usage error's message. */
  async function refusal(args: string[]): Promise<string> {
    const program = buildProgram({ code: 0 }, handlers);
    const e: unknown = await program.parseAsync(['node', 'acp-kit', ...args]).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(CliError);
    return e instanceof CliError ? e.message : '';
  }

  it('serve, agent and check say the same thing about a count that is not a positive integer', async () => {
    // before: serve said "a positive whole number", agent and check "a positive integer"
    expect(await refusal(['serve', '--max-sessions', '1.5'])).toBe(
      '--max-sessions must be a positive integer (got "1.5")',
    );
    expect(await refusal(['agent', '--max-turn-requests', '0'])).toBe(
      '--max-turn-requests must be a positive integer (got "0")',
    );
    expect(await refusal(['check', 'agent', '--concurrency', 'x', '--', 'a'])).toBe(
      '--concurrency must be a positive integer (got "x")',
    );
  });

  it('refuses integers past the safe range everywhere (agent and check accepted 1e300)', async () => {
    expect(await refusal(['agent', '--context-window', '1e300'])).toBe(
      '--context-window must be a positive integer (got "1e300")',
    );
    expect(await refusal(['check', 'client', '--timeout', '1e300', '--', 'a'])).toBe(
      '--timeout must be a positive integer (got "1e300")',
    );
  });

  it('ports keep their range wording', async () => {
    expect(await refusal(['serve', '--port', '65536'])).toBe('--port must be 0..65535 (got "65536")');
    expect(await refusal(['serve', '--http2-port', '-1'])).toBe('--http2-port must be 0..65535 (got "-1")');
  });
});

describe('integerFlag', () => {
  it('accepts the whole numbers of its range and names the range when it refuses', () => {
    const atLeastZero = integerFlag('--n', { min: 0 });
    expect(atLeastZero('0')).toBe(0);
    expect(() => atLeastZero('-1')).toThrow('--n must be an integer of at least 0 (got "-1")');
    expect(() => atLeastZero('2.5')).toThrow('--n must be an integer of at least 0 (got "2.5")');
    expect(() => atLeastZero('9007199254740992')).toThrow(/must be an integer of at least 0/);
    expect(integerFlag('--port', { min: 0, max: 65535 })('65535')).toBe(65535);
  });
});
