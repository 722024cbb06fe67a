import { stat } from 'node:fs/promises';
import { asObject, optionalInt, optionalString, requireString, textContent, type Tool } from '../tool.js';
import type { AnyToolCallContent } from '@acp-kit/protocol';

export interface RunCommandInput {
  command: string;
  /** working directory relative to the project root (default: the root) */
  cwd?: string;
  timeoutMs?: number;
}

/** `run_command`: runs a shell command (asks in `ask` mode). */
export const runCommandTool: Tool<RunCommandInput> = {
  name: 'run_command',
  description:
    'Run a shell command (/bin/sh -c) in the project directory and return its exit code and combined output (capped at 64 KiB). ' +
    'Use for builds, tests, git and other CLI tools. Non-interactive only.',
  inputSchema: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'Shell command line' },
      cwd: { type: 'string', description: 'Working directory relative to the project root' },
      timeout_ms: {
        type: 'integer',
        minimum: 1,
        maximum: 3_600_000,
        description: 'Kill the command after this long (default 120000)',
      },
    },
    required: ['command'],
    additionalProperties: false,
  },
  kind: 'execute',
  mutates: true,
  parse(raw) {
    const o = asObject(raw, 'run_command');
    return {
      command: requireString(o, 'command', 'run_command'),
      cwd: optionalString(o, 'cwd', 'run_command'),
      timeoutMs: optionalInt(o, 'timeout_ms', 'run_command', 1, 3_600_000),
    };
  },
  needsPermission: () => true,
  title: (i) => `Run \`${i.command.length > 80 ? i.command.slice(0, 77) + '...' : i.command}\``,
  async execute(input, ctx) {
    const dir = await ctx.sandbox.resolve(input.cwd ?? '.');
    const st = await stat(dir.real).catch(() => null);
    if (!st?.isDirectory()) throw new Error(`working directory not found: ${dir.path}`);
    const r = await ctx.terminal.run(input.command, {
      cwd: dir.path,
      signal: ctx.signal,
      timeoutMs: input.timeoutMs,
      progress: ctx.progress,
      send: ctx.send,
    });
    const status = r.timedOut
      ? `timed out after ${input.timeoutMs ?? 120_000} ms`
      : r.signal
        ? `killed by ${r.signal}`
        : `exit code ${r.exitCode}`;
    const out = r.output + (r.truncated ? '\n… [output truncated]' : '');
    const content: AnyToolCallContent[] = r.terminalId
      ? [{ type: 'terminal', terminalId: r.terminalId }]
      : [
          textContent(
            '```\n$ ' + input.command + '\n' + out + (out.endsWith('\n') || out === '' ? '' : '\n') + '```\n' + status,
          ),
        ];
    return {
      content,
      result: `Command ${status}.\n${out === '' ? '(no output)' : out}`,
      isError: r.timedOut || r.exitCode !== 0,
      rawOutput: { exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut, truncated: r.truncated },
    };
  },
};
