/**
 * Terminal-login helpers of the client library: the command of an auth method in both forms
 * (`_meta["terminal-auth"]`, `type: "terminal"`) and the methods a -32000 error repeats.
 */
import { describe, expect, it } from 'vitest';
import { authMethodsFromError, mergeAuthMethods, shellCommandLine, terminalLoginCommand } from '../src/index.js';
import { codecFor } from '../../protocol/src/codec/index.js';
import { AcpError } from '../../protocol/src/errors.js';
import type { AuthMethod } from '../../protocol/src/model/session.js';

describe('terminalLoginCommand', () => {
  it('reads _meta["terminal-auth"] of a v1 method as decoded by the codec (claude-agent-acp form)', () => {
    const init = codecFor(1).decodeResult('initialize', {
      protocolVersion: 1,
      agentCapabilities: {},
      authMethods: [
        {
          id: 'claude-login',
          name: 'Log in with Claude',
          _meta: { 'terminal-auth': { command: 'claude', args: ['/login'], label: 'Claude login', env: { A: 'b c' } } },
        },
      ],
    }) as { authMethods: AuthMethod[] };
    const cmd = terminalLoginCommand(init.authMethods[0]!);
    expect(cmd).toEqual({ command: 'claude', args: ['/login'], env: { A: 'b c' }, label: 'Claude login' });
    expect(shellCommandLine(cmd!)).toBe("A='b c' claude /login");
  });

  it('a v2 type "terminal" method runs the agent command with the method args and env', () => {
    const [m] = codecFor(2).decodeResult('initialize', {
      protocolVersion: 2,
      info: { name: 'a', version: '1' },
      capabilities: {},
      authMethods: [
        { type: 'terminal', methodId: 'tty', name: 'TTY', args: ['--login'], env: [{ name: 'MODE', value: 'x' }] },
      ],
    }).authMethods as AuthMethod[];
    expect(terminalLoginCommand(m!, { command: 'my agent', args: ['--acp'] })).toEqual({
      command: 'my agent',
      args: ['--acp', '--login'],
      env: { MODE: 'x' },
    });
    expect(shellCommandLine(terminalLoginCommand(m!, { command: 'my agent', args: ["it's"] })!)).toBe(
      `MODE=x 'my agent' 'it'\\''s' --login`,
    );
    // without the agent command there is nothing to run; agent methods have no command
    expect(terminalLoginCommand(m!)).toBeUndefined();
    expect(terminalLoginCommand({ methodId: 'k', name: 'Key', type: 'agent' })).toBeUndefined();
  });
});

describe('authMethodsFromError', () => {
  it('decodes v1 (id) and v2 (methodId) entries of data.authMethods, skips junk, merges without duplicates', () => {
    const e = new AcpError(-32000, 'Authentication required', {
      authMethods: [
        { id: 'kimi', name: 'Kimi login', _meta: { 'terminal-auth': { command: 'kimi', args: ['login'] } } },
        { type: 'terminal', methodId: 'v2', name: 'V2', args: [] },
        'junk',
        { name: 'no id' },
      ],
    });
    const methods = authMethodsFromError(e);
    expect(methods.map((m) => [m.methodId, m.type])).toEqual([
      ['kimi', 'agent'],
      ['v2', 'terminal'],
    ]);
    expect(terminalLoginCommand(methods[0]!)).toEqual({ command: 'kimi', args: ['login'], env: {} });
    expect(authMethodsFromError(new AcpError(-32000, 'x'))).toEqual([]);
    expect(mergeAuthMethods([{ methodId: 'kimi', name: 'Known' }], methods).map((m) => m.name)).toEqual([
      'Known',
      'V2',
    ]);
  });
});
