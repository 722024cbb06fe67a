import type { ClientTerminalView, ElicitationView, SessionItem, TerminalItem } from '../api.js';
import { list, rec } from '../json-view.js';
import { Blocks } from './Blocks.js';
import { SessionMessageCard } from './SessionMessageCard.js';
import { TextDiff } from './TextDiff.js';

/** One entry of a tool call's content: Markdown, a diff, file changes with their patch, or a terminal. */
function ToolContent(props: {
  raw: unknown;
  terminals: Map<string, TerminalItem>;
  clientTerminals: Map<string, ClientTerminalView>;
}) {
  const { raw, terminals, clientTerminals } = props;
  const c = rec(raw);
  if (!c) return <pre class="raw">{JSON.stringify(raw, null, 2)}</pre>;
  // Markdown, as an editor shows it: agents fence file text and command output in it
  if (c.type === 'content') return <Blocks blocks={[c.content]} />;
  if (c.type === 'diff')
    return (
      <TextDiff
        path={String(c.path)}
        oldText={typeof c.oldText === 'string' ? c.oldText : ''}
        newText={String(c.newText ?? '')}
      />
    );
  if (c.type === 'file_changes') {
    const text = rec(c.patch)?.text;
    const patch = typeof text === 'string' ? text : undefined;
    return (
      <div class="diff">
        {list(c.changes)
          .map(rec)
          .map((ch, j) => (
            <div key={j}>
              <span class="badge">{String(ch?.operation)}</span> <code>{String(ch?.path)}</code>
            </div>
          ))}
        {patch ? (
          <pre class="patch">
            {patch.split('\n').map((l, j) => (
              <span
                key={j}
                class={
                  l.startsWith('+') && !l.startsWith('+++')
                    ? 'add'
                    : l.startsWith('-') && !l.startsWith('---')
                      ? 'del'
                      : ''
                }
              >
                {l}
                {'\n'}
              </span>
            ))}
          </pre>
        ) : null}
      </div>
    );
  }
  if (c.type === 'terminal') {
    const id = String(c.terminalId);
    const t = terminals.get(id);
    const ct = clientTerminals.get(id);
    return (
      <div>
        <div class="muted">
          terminal {id} {ct?.command ?? String(t?.command ?? '')}
        </div>
        <pre class="term">{t?.outputText ?? ct?.output ?? ''}</pre>
      </div>
    );
  }
  return <pre class="raw">{JSON.stringify(c, null, 2)}</pre>;
}

export function Item(props: {
  it: SessionItem;
  terminals: Map<string, TerminalItem>;
  clientTerminals: Map<string, ClientTerminalView>;
}) {
  const { it } = props;
  if (it.kind === 'message') {
    const role = String(it.role);
    if (role === 'thought') {
      return (
        <details class="thought">
          <summary>Thought</summary>
          <Blocks blocks={it.content} />
        </details>
      );
    }
    return (
      <>
        <div class="label">{role === 'user' ? 'User' : 'Agent'}</div>
        <Blocks blocks={it.content} />
      </>
    );
  }
  if (it.kind === 'tool_call') {
    const content = list(it.content);
    return (
      <>
        <div class="label">
          <span class="badge">{String(it.toolKind)}</span> {String(it.title ?? it.name ?? it.toolCallId)}{' '}
          <span class={`badge status status-${String(it.status)}`} data-testid="tool-status">
            {String(it.status)}
          </span>
        </div>
        {content.map((raw, i) => (
          <ToolContent key={i} raw={raw} terminals={props.terminals} clientTerminals={props.clientTerminals} />
        ))}
        {it.rawInput !== undefined ? (
          <details>
            <summary>input</summary>
            <pre class="raw">{JSON.stringify(it.rawInput, null, 2)}</pre>
          </details>
        ) : null}
        {it.rawOutput !== undefined ? (
          <details>
            <summary>output</summary>
            <pre class="raw">{JSON.stringify(it.rawOutput, null, 2)}</pre>
          </details>
        ) : null}
      </>
    );
  }
  if (it.kind === 'plan') {
    const entries = list(rec(it.plan)?.entries).map(rec);
    return (
      <>
        <div class="label">Plan</div>
        <ul class="plan">
          {entries.map((e, i) => (
            <li key={i} class={`plan-${String(e?.status)}`}>
              <span class="badge">{String(e?.status)}</span> {String(e?.content)}
            </li>
          ))}
        </ul>
      </>
    );
  }
  if (it.kind === 'permission') {
    return (
      <>
        <div class="label">
          Permission: {it.title}{' '}
          <span class="badge" data-testid="permission-outcome">
            {it.outcome}
          </span>
        </div>
        <ul class="options">
          {it.options.map((o) => (
            <li key={o.optionId} class={o.optionId === it.optionId ? 'chosen' : ''}>
              {o.optionId === it.optionId ? '✓ ' : ''}
              {o.name} <span class="muted">({o.kind})</span>
            </li>
          ))}
        </ul>
      </>
    );
  }
  if (it.kind === 'elicitation') return <ElicitationCard it={it} />;
  if (it.kind === 'session_message') return <SessionMessageCard it={it} />;
  if (it.kind === 'compaction') {
    return (
      <>
        <div class="label">
          Compaction <span class="badge">{String(it.status)}</span>
        </div>
        <Blocks blocks={it.summary} />
      </>
    );
  }
  return <pre class="raw">{JSON.stringify(it, null, 2)}</pre>;
}

/** An elicitation as a form card: the question (fields, or the URL and its host) and the answer beside it. */
function ElicitationCard({ it }: { it: ElicitationView }) {
  return (
    <>
      <div class="label">
        Elicitation ({it.mode}): {it.message}{' '}
        <span class="badge" data-testid="elicitation-action">
          {it.action}
        </span>
      </div>
      {it.url !== undefined ? (
        <div class="elicitation-url">
          {it.url} <span class="muted">host: {it.host ?? '(not a valid URL)'}</span>
        </div>
      ) : null}
      <ul class="options" data-testid="elicitation-fields">
        {it.fields.map((f) => (
          <li key={f.name}>
            {f.label}
            {f.required ? ' *' : ''}{' '}
            <span class="muted">
              ({f.type}
              {f.choices ? `: ${f.choices.join(' | ')}` : ''}
              {f.default !== undefined ? `, default ${JSON.stringify(f.default)}` : ''})
            </span>
          </li>
        ))}
      </ul>
      {it.content !== undefined ? (
        <pre class="raw" data-testid="elicitation-content">
          {JSON.stringify(it.content, null, 2)}
        </pre>
      ) : null}
    </>
  );
}
