import { denyAll } from '@acp-kit/client';
import type { SessionInfo } from '@acp-kit/protocol';
import { CliError, formatCliError, toCliError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { SessionsFlags } from '../flags.js';
import { NdjsonWriter, resultLine } from '../render/ndjson-events.js';
import { TranscriptRenderer } from '../render/transcript.js';
import { handleSignals, openAgent, openSession, type OpenAgent } from '../session-runner.js';
import { colorEnabled, createStyle, stripAnsi } from '../style.js';

/** Runs `body` with an open agent; closes it on every path (signals included) and maps errors. */
export async function withAgent(flags: SessionsFlags, body: (a: OpenAgent) => Promise<number>): Promise<number> {
  const errStyle = createStyle(colorEnabled(process.stderr));
  let open: OpenAgent | undefined;
  const leave = (code: number): void =>
    void (open ? open.close() : Promise.resolve()).finally(() => process.exit(code));
  const uninstall = handleSignals(
    () => leave(ExitCode.Interrupted),
    (signal) => leave(signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated),
  );
  try {
    // nothing here should need permission; reject anything that asks
    open = await openAgent(flags, { permissionPolicy: denyAll() });
    return await body(open);
  } catch (e) {
    const err = toCliError(
      e,
      open?.ctx ?? { commandLine: flags.agent ?? '(built-in agent)', command: flags.agent ?? 'acp-kit' },
    );
    if (flags.json) process.stdout.write(resultLine(err.exitCode, { error: err.toJSON() }));
    process.stderr.write(formatCliError(err, errStyle));
    return err.exitCode;
  } finally {
    uninstall();
    await open?.close();
  }
}

function unsupportedListing(a: OpenAgent): CliError {
  return new CliError(
    'unsupported',
    ExitCode.Unsupported,
    `the agent (${a.agent.display}) does not support listing sessions`,
    {
      hint: 'Session listing needs an agent that advertises the session list capability (v1 sessionCapabilities.list, v2 capabilities.session).',
    },
  );
}

/** `acp-kit sessions list`. */
export async function sessionsListCommand(
  flags: SessionsFlags & { all?: boolean; archived?: boolean },
): Promise<number> {
  return withAgent(flags, async (a) => {
    if (!a.conn.supports('session/list')) throw unsupportedListing(a);
    let sessions: SessionInfo[];
    try {
      sessions = await a.conn.listAllSessions({
        ...(flags.all ? {} : { cwd: a.cwd }),
        // archived sessions exist only with the unstable archive capability: without it there are none to add
        ...(flags.archived && a.conn.supports('session/archive') ? { archived: 'include' } : {}),
      });
    } catch (e) {
      throw toCliError(e, a.ctx);
    }
    if (flags.json) {
      new NdjsonWriter((s) => void process.stdout.write(s)).emit({ type: 'sessions', sessions });
      process.stdout.write(resultLine(ExitCode.Ok, { sessions: sessions.length }));
      return ExitCode.Ok;
    }
    const style = createStyle(colorEnabled(process.stdout));
    if (sessions.length === 0) {
      process.stdout.write(style.dim(`no sessions${flags.all ? '' : ` in ${a.cwd} (try --all)`}\n`));
      return ExitCode.Ok;
    }
    for (const s of sessions) {
      const when = s.updatedAt ? new Date(s.updatedAt).toLocaleString() : '';
      const title = s.title ? stripAnsi(s.title) : style.dim('(untitled)');
      const archived = s.archived ? style.dim('  (archived)') : '';
      process.stdout.write(
        `${style.bold(s.sessionId)}  ${style.dim(when)}  ${title}${archived}${flags.all ? style.dim(`  ${s.cwd}`) : ''}\n`,
      );
    }
    return ExitCode.Ok;
  });
}

/** `acp-kit sessions show <id>`: resumes the session with a replay and prints its history. */
export async function sessionsShowCommand(sessionId: string, flags: SessionsFlags): Promise<number> {
  return withAgent(flags, async (a) => {
    const replay = a.conn.replayMethod;
    if (!replay) {
      throw new CliError(
        'unsupported',
        ExitCode.Unsupported,
        `the agent (${a.agent.display}) cannot replay a session's history`,
        {
          hint: 'Showing a session needs session/load (v1 loadSession) or v2 session/resume with replay.',
        },
      );
    }
    if (flags.json) {
      const w = new NdjsonWriter((s) => void process.stdout.write(s));
      w.emit({ type: 'session', sessionId, cwd: a.cwd, mode: replay === 'session/load' ? 'load' : 'resume' });
      // the replay streams as it arrives; the merged entities follow once it is complete
      const { session } = await openSession(a, sessionId, (update) => w.emit({ type: 'update', sessionId, update }));
      w.emit({ type: 'history', sessionId: session.sessionId, state: session.state.toJSON() });
      process.stdout.write(resultLine(ExitCode.Ok));
      return ExitCode.Ok;
    }
    const { session } = await openSession(a, sessionId);
    const style = createStyle(colorEnabled(process.stdout));
    const title = session.state.info.title;
    process.stdout.write(style.bold(`session ${session.sessionId}${title ? ` — ${stripAnsi(title)}` : ''}\n`));
    const r = new TranscriptRenderer({
      write: (s) => void process.stdout.write(s),
      style,
      cwd: a.cwd,
      showUserMessages: true,
    });
    r.renderState(session.state);
    r.line('');
    return ExitCode.Ok;
  });
}
