import React, { useEffect, useRef, useState } from 'react';
import { Box, Static, Text, useInput, useStdout } from 'ink';
import type {
  AnyContentBlock,
  AnyToolCallContent,
  MessageState,
  PlanState,
  ToolCallState,
  TimelineEntry,
  SessionState,
  AvailableCommand,
} from '@acp-kit/protocol';
import { diffLinesOf, describeBlock } from '../render/transcript.js';
import { formatTokens, formatUsage, planMark, toolStatusIcon } from '../render/symbols.js';
import { stripAnsi } from '../style.js';
import { configChoices, configSummary } from '../session-config.js';
import { cancelMenu } from './chat-cancel.js';
import { slashMenu, type ChatActions, type ChatView, type FeedItem, type Note } from './chat-model.js';
import { SessionPicker } from './SessionPicker.js';
import { ElicitationPrompt } from './ElicitationForm.js';
import { StreamingMarkdown } from './markdown.js';

/** The view once a session is attached. */
type ReadyView = ChatView & { state: SessionState };

/** Whether a session is attached (the chat screen needs its state). */
function isReady(view: ChatView): view is ReadyView {
  return view.state !== undefined;
}

/** The chat header's place in the `<Static>` list, ahead of the finished feed items. */
const HEADER = { id: -1, header: true } as const;

const TERMINAL_TAIL_LINES = 8;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * One incremental Markdown renderer per agent message: while it streams only its tail block is
 * parsed again; a finished message is rendered once more when it moves into `<Static>`, then never.
 */
const markdownOf = new WeakMap<MessageState, StreamingMarkdown>();

/** The message's text; `m.text` is cached incrementally, the block walk is for non-text blocks. */
function messageText(m: MessageState): string {
  const blocks = m.content;
  if (blocks.every((b) => b.type === 'text')) return m.text;
  return blocks.map((b: AnyContentBlock) => describeBlock(b)).join('');
}

function statusColor(status: string): string {
  switch (status) {
    case 'completed':
      return 'green';
    case 'failed':
      return 'red';
    case 'cancelled':
      return 'yellow';
    case 'pending':
      return 'gray';
    default:
      return 'blue';
  }
}

function MessageView({ m }: { m: MessageState }): React.ReactElement | null {
  const text = stripAnsi(messageText(m));
  if (!text) return null;
  if (m.role === 'user') {
    return (
      <Text bold>
        {'> '}
        {text}
      </Text>
    );
  }
  let md = markdownOf.get(m);
  if (!md) markdownOf.set(m, (md = new StreamingMarkdown()));
  const blocks = md.update(text);
  // thoughts are Markdown too, dimmed as a whole block (one style around each rendered block)
  const thought = m.role === 'thought';
  return (
    <Box flexDirection="column">
      {blocks.map((b, i) => (
        <Box key={i} marginTop={i > 0 ? 1 : 0}>
          <Text dimColor={thought}>{b}</Text>
        </Box>
      ))}
    </Box>
  );
}

function DiffView({ item, cwd }: { item: AnyToolCallContent; cwd: string }): React.ReactElement | null {
  const lines = diffLinesOf(item, cwd);
  if (!lines) return null;
  return (
    <Box flexDirection="column" marginLeft={2}>
      {lines.map((l, i) => (
        <Text
          key={i}
          color={l.kind === 'add' ? 'green' : l.kind === 'remove' ? 'red' : l.kind === 'hunk' ? 'cyan' : undefined}
          bold={l.kind === 'header'}
          dimColor={l.kind === 'info'}
        >
          {stripAnsi(l.text)}
        </Text>
      ))}
    </Box>
  );
}

function TerminalView({ terminalId, view }: { terminalId: string; view: ReadyView }): React.ReactElement | null {
  const columns = useColumns();
  const t = view.state.terminals.get(terminalId);
  let command: string | undefined;
  let output: string;
  let exit: string | undefined;
  if (t) {
    command = t.command;
    output = t.outputText;
    if (t.exitStatus)
      exit = t.exitStatus.signal ? `killed by ${t.exitStatus.signal}` : `exit code ${t.exitStatus.exitCode ?? '?'}`;
  } else {
    const c = view.clientTerminal(terminalId);
    if (!c) return null;
    command = c.command;
    output = c.output;
    if (c.exitCode !== undefined || c.signal)
      exit = c.signal ? `killed by ${c.signal}` : `exit code ${c.exitCode ?? '?'}`;
  }
  const lines = stripAnsi(output).replace(/\n$/, '').split('\n');
  const tail = lines.slice(-TERMINAL_TAIL_LINES);
  return (
    <Box flexDirection="column" borderStyle="single" borderColor="gray" paddingX={1} width={columns}>
      {command ? (
        <Text dimColor>
          $ {stripAnsi(command)}
          {t && !t.exitStatus && t.capabilities?.cancel != null ? ` · /cancel-terminal ${terminalId}` : ''}
        </Text>
      ) : null}
      {lines.length > tail.length ? (
        <Text dimColor>… {lines.length - tail.length} earlier lines · Ctrl-O shows all</Text>
      ) : null}
      {output ? tail.map((l, i) => <Text key={i}>{l}</Text>) : null}
      {exit ? <Text dimColor>{exit}</Text> : null}
    </Box>
  );
}

function ToolCallView({ tc, view }: { tc: ToolCallState; view: ReadyView }): React.ReactElement {
  const title = stripAnsi(tc.title ?? tc.name ?? tc.toolCallId);
  const decision = view.decisions.get(tc.toolCallId);
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={statusColor(tc.status)}>{toolStatusIcon(tc.status)} </Text>
        <Text bold>{title}</Text>
        {tc.toolKind !== 'other' ? <Text dimColor> [{tc.toolKind}]</Text> : null}
        <Text color={statusColor(tc.status)}> {tc.status}</Text>
        {!tc.finished && tc.capabilities?.cancel != null ? <Text dimColor> · /cancel-tool {tc.toolCallId}</Text> : null}
      </Text>
      {decision ? <Text color="magenta"> {decision.text}</Text> : null}
      {tc.content.map((item, i) => {
        if (item.type === 'terminal') return <TerminalView key={i} terminalId={item.terminalId} view={view} />;
        if (item.type === 'content') {
          const text = stripAnsi(describeBlock(item.content)).replace(/\n$/, '');
          const lines = text.split('\n');
          return (
            <Box key={i} marginLeft={2} flexDirection="column">
              {lines.slice(0, 12).map((l, j) => (
                <Text key={j} dimColor>
                  {l}
                </Text>
              ))}
              {lines.length > 12 ? <Text dimColor>… {lines.length - 12} more lines · Ctrl-O shows all</Text> : null}
            </Box>
          );
        }
        const diff = <DiffView key={i} item={item} cwd={view.cwd} />;
        return diff;
      })}
    </Box>
  );
}

function PlanView({ p }: { p: PlanState }): React.ReactElement {
  const plan = p.plan;
  if (plan.type !== 'items' || !Array.isArray(plan.entries)) return <Text bold>Plan ({plan.type})</Text>;
  return (
    <Box flexDirection="column">
      <Text bold>Plan</Text>
      {plan.entries.map((e, i) => (
        <Text key={i} color={e.status === 'in_progress' ? 'yellow' : undefined} dimColor={e.status === 'completed'}>
          {'  '}
          {planMark(e.status)} {stripAnsi(e.content)}
        </Text>
      ))}
    </Box>
  );
}

function EntryView({ entry, view }: { entry: TimelineEntry; view: ReadyView }): React.ReactElement | null {
  switch (entry.kind) {
    case 'message':
      return <MessageView m={entry} />;
    case 'tool_call':
      return <ToolCallView tc={entry} view={view} />;
    case 'plan':
      return <PlanView p={entry} />;
    case 'compaction':
      return <Text dimColor>context compaction {entry.status}</Text>;
    default:
      return null;
  }
}

/** The terminal's width: command output and the expanded output use all of it. */
function useColumns(): number {
  const { stdout } = useStdout();
  return Math.max(20, stdout.columns || 80);
}

function OutputView({ note }: { note: Note }): React.ReactElement {
  const columns = useColumns();
  const text = stripAnsi(note.text).replace(/\n$/, '');
  return (
    <Box flexDirection="column" borderStyle="single" borderColor="gray" paddingX={1} width={columns}>
      <Text dimColor>full output of {stripAnsi(note.title ?? '')}:</Text>
      <Text>{text || '(no output)'}</Text>
    </Box>
  );
}

function NoteView({ note }: { note: Note }): React.ReactElement {
  switch (note.kind) {
    case 'prompt':
      return (
        <Text bold color="cyan">
          {'> '}
          {note.text}
        </Text>
      );
    case 'output':
      return <OutputView note={note} />;
    case 'error':
      return <Text color="red">{note.text}</Text>;
    case 'permission':
      return <Text color="magenta">{note.text}</Text>;
    case 'stop':
      return <Text color={note.ok ? 'green' : 'yellow'}>— {note.text}</Text>;
    default:
      return <Text dimColor>{note.text}</Text>;
  }
}

function FeedItemView({ item, view }: { item: FeedItem; view: ReadyView }): React.ReactElement | null {
  return 'note' in item ? <NoteView note={item.note} /> : <EntryView entry={item.entry} view={view} />;
}

/** A blank line before each turn's prompt (user messages of a replayed history too). */
function startsTurn(item: FeedItem): boolean {
  return 'note' in item ? item.note.kind === 'prompt' : item.entry.kind === 'message' && item.entry.role === 'user';
}

function PermissionPicker({ view, actions }: { view: ReadyView; actions: ChatActions }): React.ReactElement | null {
  const [index, setIndexState] = useState(0);
  // a ref, so that Down followed at once by Enter picks what Down selected
  const indexRef = useRef(0);
  const setIndex = (f: (i: number) => number): void => {
    indexRef.current = f(indexRef.current);
    setIndexState(indexRef.current);
  };
  const pending = view.permission;
  const options = pending?.request.options ?? [];
  useEffect(() => setIndex(() => 0), [pending]);
  useInput(
    (input, key) => {
      if (!pending || options.length === 0) return;
      if (key.escape) actions.rejectPermission();
      else if (key.upArrow) setIndex((i) => (i + options.length - 1) % options.length);
      else if (key.downArrow || key.tab) setIndex((i) => (i + 1) % options.length);
      else if (key.return) {
        const chosen = options[indexRef.current];
        if (chosen) pending.answer(chosen.optionId);
      } else {
        const typed = /^[1-9]$/.test(input) ? options[Number(input) - 1] : undefined;
        if (typed) pending.answer(typed.optionId);
      }
    },
    { isActive: !!pending },
  );
  if (!pending) return null;
  const req = pending.request;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold color="magenta">
        Permission: {stripAnsi(req.title)}
      </Text>
      {req.description ? <Text>{stripAnsi(req.description)}</Text> : null}
      {options.map((o, i) => (
        <Text key={o.optionId} color={i === index ? 'magenta' : undefined} bold={i === index}>
          {i === index ? '❯ ' : '  '}
          {i + 1}. {stripAnsi(o.name)}
          <Text dimColor> ({o.kind})</Text>
        </Text>
      ))}
      <Text dimColor>
        ↑/↓ choose · Enter confirm{options.some((o) => o.kind.startsWith('reject')) ? ' · Esc reject' : ''} · Ctrl-C
        cancel the turn
      </Text>
    </Box>
  );
}

function InputLine({ view, actions }: { view: ReadyView; actions: ChatActions }): React.ReactElement {
  // The text lives in the controller (Ctrl-C clears it there). Key events can arrive faster
  // than React re-renders (typed-ahead text followed by Enter): handlers read `view.draft`, which
  // is updated synchronously, never a stale render's copy.
  const text = view.draft;
  const textRef = {
    get current(): string {
      return view.draft;
    },
  };
  const setText = (v: string | ((t: string) => string)): void =>
    actions.setDraft(typeof v === 'function' ? v(view.draft) : v);
  const [history] = useState<string[]>([]);
  const [hIndex, setHIndex] = useState(-1);
  const [sel, setSel] = useState(0);
  const commands = slashMenu(view.state.availableCommands, cancelMenu(view.state));
  const slash = text.startsWith('/') && !text.includes(' ');
  const matches = slash ? commands.filter((c) => `/${c.name}`.startsWith(text)) : [];
  const submit = (raw: string): void => {
    const t = raw.trim();
    if (!t) return setText(raw);
    const partial = t.startsWith('/') && !t.includes(' ') ? commands.filter((c) => `/${c.name}`.startsWith(t)) : [];
    const completion = partial[sel] ?? partial[0];
    if (completion && !commands.some((c) => `/${c.name}` === t)) {
      // first Enter on a partial slash command completes it
      setText(`/${completion.name} `);
      return;
    }
    // while a turn runs, send() queues it (shown above the input line)
    history.unshift(t);
    setHIndex(-1);
    setText('');
    setSel(0);
    actions.send(t);
  };
  useInput(
    (input, key) => {
      if (key.ctrl && input === 'd') return actions.exit();
      if (key.return) return submit(textRef.current);
      const match = slash ? matches[sel] : undefined;
      if (key.tab && match) {
        setText(`/${match.name} `);
        return;
      }
      if (key.upArrow) {
        if (slash && matches.length > 0) return setSel((s) => (s + matches.length - 1) % matches.length);
        const n = Math.min(hIndex + 1, history.length - 1);
        const earlier = history[n];
        if (earlier !== undefined) {
          setHIndex(n);
          setText(earlier);
        }
        return;
      }
      if (key.downArrow) {
        if (slash && matches.length > 0) return setSel((s) => (s + 1) % matches.length);
        const n = hIndex - 1;
        setHIndex(Math.max(n, -1));
        // below the newest entry (n = -1): the empty line
        setText(history[n] ?? '');
        return;
      }
      if (key.backspace || key.delete) {
        setText((t) => t.slice(0, -1));
        setSel(0);
        return;
      }
      if (key.ctrl && input === 'u') return setText('');
      // Esc takes back the latest queued message (it was not sent yet)
      if (key.escape && view.queued.length > 0) return actions.unqueue();
      if (key.ctrl || key.meta || key.escape) return;
      if (input) {
        // typed-ahead or pasted text arrives in one chunk: inner newlines become spaces, a
        // trailing one submits (as Enter would)
        const endsLine = /[\r\n]$/.test(input);
        const next = textRef.current + input.replace(/[\r\n]+$/, '').replace(/[\r\n]+/g, ' ');
        setSel(0);
        if (endsLine) submit(next);
        else setText(next);
      }
    },
    { isActive: !view.permission && !view.elicitation },
  );
  return <InputBox view={view} text={text} matches={matches} sel={sel} />;
}

/** The input line: queued prompts above it, the slash commands that match what is typed below. */
function InputBox({
  view,
  text,
  matches,
  sel,
}: {
  view: ReadyView;
  text: string;
  matches: AvailableCommand[];
  sel: number;
}): React.ReactElement {
  return (
    <Box flexDirection="column">
      {view.queued.map((q, i) => (
        <Text key={i} dimColor>
          {'  queued: '}
          {q}
          {i === view.queued.length - 1 ? '  (Esc removes)' : ''}
        </Text>
      ))}
      <Box borderStyle="round" borderColor={view.running ? 'gray' : 'cyan'} paddingX={1}>
        <Text>
          <Text color="cyan">{'> '}</Text>
          {text}
          <Text inverse> </Text>
        </Text>
      </Box>
      {matches.length > 0 ? (
        <Box flexDirection="column" marginLeft={2}>
          {matches.slice(0, 8).map((c, i) => (
            <Text key={c.name} color={i === sel ? 'cyan' : undefined}>
              /{c.name}
              {c.input?.hint ? <Text dimColor> {c.input.hint}</Text> : null}
              <Text dimColor> — {c.description}</Text>
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}

/** Spinner, elapsed time and tokens while a turn runs; ticks on its own timer. */
function Working({ view }: { view: ReadyView }): React.ReactElement {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, []);
  const elapsed = Math.max(0, Math.floor((now - (view.turnStartedAt ?? now)) / 1000));
  const frame = SPINNER[Math.floor(now / 100) % SPINNER.length];
  const usage = view.state.usage;
  const what = view.cancelling
    ? 'cancelling… (Ctrl-C again to exit)'
    : view.permission || view.elicitation
      ? 'waiting for your choice'
      : 'working…';
  return (
    <Text color={view.cancelling ? 'yellow' : 'cyan'}>
      {frame} {what}
      <Text dimColor>
        {' '}
        ({elapsed}s{usage ? ` · ${formatUsage(usage)}` : ''})
      </Text>
    </Text>
  );
}

/** The session's settings (config options, or v1 modes) for the header: `mode ask · model demo · …`. */
function settingsLine(state: ReadyView['state']): string {
  return stripAnsi(configSummary(configChoices(state)));
}

/** Mode and model now (the status line follows `/mode`, `/model` and the agent's config_option_update). */
function modeAndModel(state: ReadyView['state']): string {
  const choices = configChoices(state);
  return stripAnsi(
    configSummary(['mode', 'model'].flatMap((c) => choices.filter((x) => x.category === c).slice(0, 1))),
  );
}

function StatusLine({ view }: { view: ReadyView }): React.ReactElement {
  // the context-window view when the agent sends one, else the last turn's token counts
  const usage = view.state.usage
    ? formatUsage(view.state.usage)
    : view.turnTokens
      ? formatTokens(view.turnTokens)
      : undefined;
  const title = view.state.info.title;
  const settings = modeAndModel(view.state);
  return (
    <Box justifyContent="space-between">
      {/* the key hints keep their width; the title, usage and settings wrap when the line is short */}
      <Box flexShrink={0}>
        <Text>
          {/* a dropped remote connection being re-established comes first */}
          {view.connection ? <Text color="yellow">{view.connection} · </Text> : null}
          <Text dimColor>
            {view.running ? 'Ctrl-C cancels · Enter queues a message' : 'ready'}
            {view.exitArmed ? ' · press Ctrl-C again to exit' : view.running ? '' : ' · Ctrl-D exits · / commands'}
          </Text>
        </Text>
      </Box>
      <Text dimColor>
        {title ? stripAnsi(title) : ''}
        {title && usage ? ' · ' : ''}
        {usage ?? ''}
        {settings && (title || usage) ? ' · ' : ''}
        {settings}
      </Text>
    </Box>
  );
}

/** The interactive chat screen. */
function ChatScreen({ view, actions }: { view: ReadyView; actions: ChatActions }): React.ReactElement {
  const done = view.feed.slice(0, view.committed);
  const live = view.feed.slice(view.committed);
  return (
    <Box flexDirection="column">
      <Static items={[HEADER, ...done]}>
        {(item) =>
          'header' in item ? (
            <Box key="header" flexDirection="column">
              <Text>
                <Text bold color="cyan">
                  acp-kit chat
                </Text>
                <Text dimColor>
                  {' '}
                  · {view.agentLabel}
                  {view.model ? ` · model ${stripAnsi(view.model)}` : ''} · protocol v{view.protocolVersion}
                </Text>
              </Text>
              {view.state.info.title ? <Text bold>{stripAnsi(view.state.info.title)}</Text> : null}
              <Text dimColor>
                session {view.sessionId} · {view.cwd}
              </Text>
              {settingsLine(view.state) ? <Text dimColor>{settingsLine(view.state)}</Text> : null}
            </Box>
          ) : (
            <Box key={item.id} marginTop={startsTurn(item) ? 1 : 0}>
              <FeedItemView item={item} view={view} />
            </Box>
          )
        }
      </Static>
      {live.map((item) => (
        <Box key={item.id} marginTop={startsTurn(item) ? 1 : 0}>
          <FeedItemView item={item} view={view} />
        </Box>
      ))}
      {view.running ? <Working view={view} /> : null}
      <PermissionPicker view={view} actions={actions} />
      <ElicitationPrompt pending={view.elicitation} />
      <InputLine view={view} actions={actions} />
      <StatusLine view={view} />
    </Box>
  );
}

/** The interactive chat: session picker, then the chat screen. */
export function App({ view, actions }: { view: ChatView; actions: ChatActions }): React.ReactElement {
  const [, setTick] = useState(0);
  useEffect(() => actions.subscribe(() => setTick((t) => t + 1)), [actions]);
  useInput(
    (input, key) => {
      if (key.ctrl && input === 'c') actions.interrupt();
      else if (key.ctrl && input === 'o') actions.expandOutput();
    },
    { isActive: !view.picker },
  );
  if (view.picker) return <SessionPicker sessions={view.picker.sessions} onPick={view.picker.pick} />;
  if (!isReady(view)) return <Text dimColor>{view.loading}</Text>;
  return <ChatScreen view={view} actions={actions} />;
}
