import React, { useEffect, useRef, useState } from 'react';
import { Box, Text, useInput } from 'ink';
import type { CreateElicitationRequest } from '@acp-kit/protocol';
import { stripAnsi } from '../style.js';
import type { PendingElicitation } from './chat-model.js';
import { choicesOf, fieldHint, formKey, showValue, startForm, type FormState } from './elicitation-form.js';

type FormRequest = Extract<CreateElicitationRequest, { mode: 'form' }>;
type UrlRequest = Extract<CreateElicitationRequest, { mode: 'url' }>;

/** The agent's question, in place of the input line: a form or a URL to consent to. */
export function ElicitationPrompt({ pending }: { pending: PendingElicitation | undefined }): React.ReactElement | null {
  if (!pending) return null;
  const r = pending.request;
  if (r.mode === 'form') return <FormView key={JSON.stringify(r)} pending={pending} request={r} />;
  if (r.mode === 'url') return <UrlView pending={pending} request={r} />;
  // other modes are refused before they get here (-32602, ACP-ALL-ELIC-10)
  return null;
}

function Asker({ pending }: { pending: PendingElicitation }): React.ReactElement {
  return (
    <Text bold color="magenta">
      {stripAnsi(pending.agentLabel)} asks: {stripAnsi(pending.request.message)}
    </Text>
  );
}

function FormView({ pending, request }: { pending: PendingElicitation; request: FormRequest }): React.ReactElement {
  const [state, setStateView] = useState<FormState>(() => startForm(request.requestedSchema));
  // a ref, so that keys arriving before the next render (typed-ahead text, then Enter) build on each other
  const ref = useRef(state);
  useEffect(() => {
    ref.current = state;
  }, [state]);
  useInput((input, key) => {
    const step = formKey(ref.current, request.requestedSchema, input, key);
    ref.current = step.state;
    setStateView(step.state);
    if (step.answer) pending.answer(step.answer);
  });
  const field = state.fields[state.step];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Asker pending={pending} />
      <Text dimColor>
        {field ? `field ${state.step + 1} of ${state.fields.length} · * required` : 'review your answers'}
      </Text>
      {field ? <FieldView state={state} /> : <ReviewView state={state} />}
      {state.error ? <Text color="red">{state.error}</Text> : null}
      <Text dimColor>
        {field
          ? 'Enter next · Shift-Tab back · Ctrl-X decline · Esc cancel'
          : 'Enter send · e edit · d decline · Esc cancel'}
      </Text>
    </Box>
  );
}

function FieldView({ state }: { state: FormState }): React.ReactElement | null {
  const f = state.fields[state.step];
  if (!f) return null;
  const hint = fieldHint(f);
  const choice = f.kind === 'select' || f.kind === 'multiselect' || f.kind === 'boolean';
  const cursor = state.cursor[state.step] ?? 0;
  const picked = state.picked[state.step];
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>{stripAnsi(f.label)}</Text>
        {f.required ? <Text color="red"> *</Text> : null}
        {hint ? <Text dimColor> ({hint})</Text> : null}
      </Text>
      {f.description ? <Text dimColor>{stripAnsi(f.description)}</Text> : null}
      {choice ? (
        choicesOf(f).map((c, i) => (
          <Text key={i} color={i === cursor ? 'magenta' : undefined} bold={i === cursor}>
            {i === cursor ? '❯ ' : '  '}
            {f.kind === 'multiselect' ? (typeof c.value === 'string' && picked?.has(c.value) ? '[x] ' : '[ ] ') : ''}
            {i + 1}. {stripAnsi(c.label)}
          </Text>
        ))
      ) : (
        <Text>
          <Text color="magenta">{'> '}</Text>
          {state.text[state.step] ?? ''}
          <Text inverse> </Text>
        </Text>
      )}
    </Box>
  );
}

function ReviewView({ state }: { state: FormState }): React.ReactElement {
  return (
    <Box flexDirection="column">
      {state.fields.map((f) => (
        <Text key={f.name}>
          {'  '}
          {stripAnsi(f.label)}
          {f.required ? '*' : ''}: <Text bold>{stripAnsi(showValue(state.content[f.name]))}</Text>
        </Text>
      ))}
    </Box>
  );
}

/** url mode (ACP-ALL-ELIC-06, -11): the full URL and its host; consent prints it, nothing is opened or fetched. */
function UrlView({ pending, request }: { pending: PendingElicitation; request: UrlRequest }): React.ReactElement {
  let host: string | undefined;
  try {
    host = new URL(request.url).host;
  } catch {
    host = undefined;
  }
  useInput((input, key) => {
    if (key.escape) pending.answer({ action: 'cancel' });
    else if (input === 'n' || input === 'd') pending.answer({ action: 'decline' });
    else if ((key.return || input === 'y') && host !== undefined) pending.answer({ action: 'accept' });
  });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Asker pending={pending} />
      <Text>
        It asks you to open: <Text bold>{stripAnsi(request.url)}</Text>
      </Text>
      <Text>
        host: <Text bold>{host ?? '(not a valid URL)'}</Text>
      </Text>
      <Text dimColor>
        {host !== undefined ? 'y/Enter: I will open it (printed, never opened here) · ' : ''}n decline · Esc cancel
      </Text>
    </Box>
  );
}
