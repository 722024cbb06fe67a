#!/usr/bin/env node
// A minimal ACP client: spawns an agent, opens a session, sends one prompt and prints what the
// agent streams, read from the session's version-neutral state store (the same code shows a
// v1 and a v2 agent).
//
//   node examples/client.mjs [--protocol auto|1|2] [--prompt <text>] [--policy approve-all|deny-all]
//                            [--cancel-after-chars <n>] [--agent "<command line>" | -- <agent command> [args...]]
//
// Without an agent command it runs the echo agent next to this file. Examples:
//   node examples/client.mjs --protocol 1 --prompt "hello v1"
//   node examples/client.mjs -- npx acp-kit agent          # any ACP agent on stdio
//   acp-kit check client -- node examples/client.mjs --agent "{agent}"   # check this client
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect, approveAll, denyAll } from 'acp-kit/client';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    protocol: { type: 'string', default: 'auto' },
    prompt: { type: 'string', default: 'Hello from the acp-kit example client' },
    policy: { type: 'string', default: 'approve-all' },
    // cancel the turn once this many characters of the reply have arrived (shows cancellation)
    'cancel-after-chars': { type: 'string' },
    // the agent as one command line (split like a shell: quotes and backslashes), as `check client` passes it
    agent: { type: 'string' },
  },
});

/** Splits a command line into words as a POSIX shell would for quotes and backslashes (no expansions). */
function splitCommandLine(text) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (c === '\\' && quote !== "'" && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}
const protocol = opts.protocol === 'auto' ? 'auto' : Number(opts.protocol);
const [command, ...args] =
  opts.agent !== undefined
    ? splitCommandLine(opts.agent)
    : positionals.length > 0
      ? positionals
      : [process.execPath, fileURLToPath(new URL('./echo-agent.mjs', import.meta.url))];

const out = process.stdout;
let midLine = false; // streamed text leaves the cursor mid-line; event lines start on their own
const line = (text) => {
  out.write(`${midLine ? '\n' : ''}${text}\n`);
  midLine = false;
};

async function main() {
  const conn = await connect({
    command,
    args,
    protocol,
    permissionPolicy: opts.policy === 'deny-all' ? denyAll() : approveAll(),
    // v1 client services (ignored by v2 agents): files confined to the session's cwd, and terminals
    fileSystem: true,
    terminals: true,
    onStderr: (text) => process.stderr.write(text),
  });
  try {
    line(`protocol: ${conn.protocolVersion}`);
    line(`agent: ${conn.agentInfo?.name ?? '(unnamed)'} ${conn.agentInfo?.version ?? ''}`.trimEnd());

    const session = await conn.newSession({ cwd: process.cwd() });
    line(`session: ${session.sessionId}`);

    // Every decoded update is applied to `session.state`, then listeners run with the update and the state.
    const printed = new Map(); // messageId -> characters already printed
    // an agent may send updates before its session/new answer: they are in the state already
    for (const m of session.state.messageList) {
      if (m.role !== 'agent' || !m.text) continue;
      line(m.text);
      printed.set(m.messageId, m.text.length);
    }
    const cancelAfter = opts['cancel-after-chars'] === undefined ? Infinity : Number(opts['cancel-after-chars']);
    let received = 0;
    let cancelSent = false;
    const toolStatus = new Map(); // toolCallId -> last printed status
    session.state.onChange((update, state) => {
      switch (update.sessionUpdate) {
        case 'agent_message_chunk':
        case 'agent_message': {
          const text = state.message('agent', update.messageId)?.text ?? '';
          const done = printed.get(update.messageId) ?? 0;
          if (text.length > done) {
            out.write(text.slice(done));
            midLine = true;
            received += text.length - done;
            printed.set(update.messageId, text.length);
            // session/cancel; the prompt still resolves, with the agent's stop reason (`cancelled`)
            if (received >= cancelAfter && !cancelSent) {
              cancelSent = true;
              session.cancel();
            }
          }
          break;
        }
        case 'tool_call_update': {
          const call = state.toolCalls.get(update.toolCallId);
          if (call && toolStatus.get(call.toolCallId) !== call.status) {
            toolStatus.set(call.toolCallId, call.status);
            line(`[tool] ${call.title ?? call.toolCallId}: ${call.status}`);
          }
          break;
        }
        case 'plan_update': {
          const mark = { completed: 'x', in_progress: '>', cancelled: '-' };
          const plan = state.plans.get(update.plan.planId)?.plan;
          const entries = plan?.type === 'items' ? plan.entries : [];
          line(`[plan] ${entries.map((e) => `[${mark[e.status] ?? ' '}] ${e.content}`).join('  ')}`);
          break;
        }
      }
    });

    const { stopReason } = await session.prompt(opts.prompt);
    line(`stop reason: ${stopReason}`);
  } finally {
    await conn.close();
  }
}

main().catch((e) => {
  process.stderr.write(`client: ${e?.message ?? e}\n`);
  process.exitCode = 1;
});
