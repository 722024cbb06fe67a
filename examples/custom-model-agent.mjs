#!/usr/bin/env node
// The built-in coding agent (tools, permissions, plans, sessions, v1 + v2) with your own model.
// A `LanguageModel` is one method: `stream(request)` yields `ModelEvent`s (text deltas, tool
// calls, usage, finish). The engine runs the tool loop: it executes the tool calls the model asks
// for (asking the user where the mode says so), sends the results back, and calls the model again
// until a response has no tool calls.
//
// This model is a tiny offline stand-in for an HTTP provider: asked anything, it lists the
// project's files with the built-in `list_files` tool, then answers with what it found.
//
//   node examples/client.mjs --prompt "what is in here?" -- node examples/custom-model-agent.mjs
import { runAgentOnStdio, InMemorySessionStore } from 'acp-kit/agent';
import { createCodingAgent } from 'acp-kit/agent/coding';

function throwIfAborted(signal) {
  // the engine turns an AbortError into the `cancelled` stop reason
  if (signal.aborted) throw Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

/** @type {import('acp-kit/agent/coding').LanguageModel} */
const fileCountingModel = {
  id: 'example:file-counter',
  async *stream({ messages, tools, signal }) {
    throwIfAborted(signal);
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      // second call: the tool result is in; answer in small deltas (the client sees them stream)
      const lines = last.results[0].output.split('\n').filter(Boolean);
      const paths = lines.filter((l) => !l.startsWith('…')); // the tool notes a truncated listing with a `…` line
      const answer = `I found ${paths.length}${paths.length < lines.length ? '+' : ''} files, for example ${paths.slice(0, 3).join(', ')}.`;
      for (const word of answer.split(/(?<= )/)) {
        throwIfAborted(signal);
        yield { type: 'text_delta', text: word };
      }
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    // first call: ask for a tool the engine offers (`tools` lists names, descriptions, JSON schemas)
    if (!tools.some((t) => t.name === 'list_files')) throw new Error('list_files is not available');
    yield { type: 'text_delta', text: 'Let me look at the project files.' };
    yield {
      type: 'tool_call',
      toolCallId: `call-${messages.length}`,
      toolName: 'list_files',
      input: { path: '.', limit: 20 },
    };
    yield { type: 'finish', reason: 'tool_calls' };
  },
};

runAgentOnStdio(
  createCodingAgent({ model: fileCountingModel, info: { name: 'custom-model-agent', version: '0.1.0' } }),
  { store: new InMemorySessionStore() },
);
