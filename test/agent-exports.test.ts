/**
 * The public entry points of the agent side (needs `npm run build`): `acp-kit/agent` is the runtime
 * alone, `acp-kit/agent/coding` the built-in coding agent (without the AI SDK), and
 * `acp-kit/agent/models` the HTTP models.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A workspace package's entry (`@acp-kit/agent`, `@acp-kit/server/postgres`) as the per-file module
 * its package.json `exports` names (the declarations' path with .js), so the walks below go on through
 * it; undefined for any other package.
 */
function workspaceModule(spec: string): string | undefined {
  const m = /^@acp-kit\/([a-z-]+)(\/.*)?$/.exec(spec);
  if (!m) return undefined;
  const dir = resolve('packages', m[1] ?? '');
  const pkg = JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string }>;
  };
  const target = pkg.exports[`.${m[2] ?? ''}`];
  if (!target) throw new Error(`${spec}: not an entry point of its package`);
  return resolve(dir, target.types.replace(/\.d\.ts$/, '.js'));
}

/** Every bare package a module imports, following relative imports (static and dynamic) and the workspace packages through dist. */
function packagesReachable(entry: string, followDynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, 'utf8');
    const specs = [
      ...[...src.matchAll(/^\s*(?:import|export)\s[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
      ...[...src.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
      ...(followDynamic ? [...src.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]) : []),
    ];
    for (const s of specs) {
      const workspace = workspaceModule(s);
      if (s.startsWith('.')) visit(resolve(dirname(file), s));
      else if (workspace) visit(workspace);
      else packages.add(s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
    }
  };
  visit(resolve(entry));
  return packages;
}

/** Every dist module a module loads statically (relative imports and workspace packages). */
function modulesReachable(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, 'utf8');
    const specs = [
      ...[...src.matchAll(/^\s*(?:import|export)\s[^'"]*?\sfrom\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
      ...[...src.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]),
    ];
    for (const s of specs) {
      const workspace = workspaceModule(s);
      if (s.startsWith('.')) visit(resolve(dirname(file), s));
      else if (workspace) visit(workspace);
    }
  };
  visit(resolve(entry));
  return [...seen];
}

describe('agent entry points', () => {
  it('acp-kit/agent/coding exports the coding agent, the demo model and the built-in tools', () => {
    const script = `
      const a = await import('acp-kit/agent/coding');
      const agent = a.createCodingAgent({ model: a.createDemoModel({ delayMs: 0 }), tools: a.builtinTools() });
      console.log(JSON.stringify({
        agent: typeof agent.prompt, demo: a.createDemoModel().id,
        tools: a.builtinTools().map((t) => t.name),
        providers: 'createOpenAICompatibleModel' in a || 'createAnthropicModel' in a,
      }));
      const m = await import('acp-kit/agent/models');
      console.log(JSON.stringify({ openai: m.createOpenAICompatibleModel({ modelName: 'gpt-4o-mini', baseUrl: 'http://127.0.0.1:9/v1' }).id, anthropic: m.createAnthropicModel({ modelName: 'claude-sonnet-4-5', apiKey: 'x' }).id }));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const [a, m] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(a).toEqual({
      agent: 'function',
      demo: 'demo',
      tools: ['read_file', 'list_files', 'search_text', 'write_file', 'edit_file', 'run_command'],
      providers: false,
    });
    expect(m).toEqual({ openai: 'openai:gpt-4o-mini', anthropic: 'anthropic:claude-sonnet-4-5' });
  });

  it('acp-kit/agent is the runtime alone: no coding agent, no createCodingAgent & co. (moved in 0.2)', () => {
    const script = `
      const a = await import('acp-kit/agent');
      console.log(JSON.stringify({ run: typeof a.runAgentOnStdio, serve: typeof a.serveAgent, coding: ['createCodingAgent', 'createDemoModel', 'builtinTools'].filter((k) => k in a) }));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ run: 'function', serve: 'function', coding: [] });
    const reached = modulesReachable('dist/entries/agent.js');
    expect(reached.some((f) => f.includes('/packages/agent/dist/'))).toBe(true);
    expect(reached.filter((f) => f.includes('/packages/coding-agent/'))).toEqual([]);
  });

  it('acp-kit/agent and acp-kit/agent/coding never load the AI SDK; acp-kit/agent/models does', () => {
    const agent = packagesReachable('dist/entries/agent.js', true);
    expect([...agent].filter((p) => p === 'ai' || p.startsWith('@ai-sdk/'))).toEqual([]);
    const coding = packagesReachable('dist/entries/agent-coding.js', false);
    expect([...coding].filter((p) => p === 'ai' || p.startsWith('@ai-sdk/'))).toEqual([]);
    const models = packagesReachable('dist/entries/agent-models.js', false);
    expect(models.has('ai')).toBe(true);
    expect(models.has('@ai-sdk/openai-compatible')).toBe(true);
    // the `acp-kit agent` command loads providers only on demand
    const cli = packagesReachable('dist/cli/commands/agent.js', false);
    expect([...cli].filter((p) => p === 'ai' || p.startsWith('@ai-sdk/'))).toEqual([]);
  });

  it('acp-kit/agent/mcp is the MCP client without the AI SDK; acp-kit/agent reaches no MCP SDK (issue 26 item 5)', () => {
    const isAi = (p: string) => p === 'ai' || p.startsWith('@ai-sdk/');
    const mcp = packagesReachable('dist/entries/agent-mcp.js', true);
    expect(mcp.has('@modelcontextprotocol/sdk')).toBe(true);
    expect([...mcp].filter(isAi)).toEqual([]);
    expect(packagesReachable('dist/entries/agent.js', true).has('@modelcontextprotocol/sdk')).toBe(false);
    const script = `
      const m = await import('acp-kit/agent/mcp');
      console.log(JSON.stringify(['connectMcpServers', 'connectSessionMcp', 'sessionMcpServers', 'closeSessionMcp'].map((k) => typeof m[k]).concat(JSON.stringify(m.MCP_CAPABILITIES))));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([
      'function',
      'function',
      'function',
      'function',
      '{"stdio":true,"http":true,"sse":true}',
    ]);
  });

  it('package.json maps ./agent/coding and ./agent/models to the built modules', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    // re-exports of @acp-kit/coding-agent and @acp-kit/coding-agent/models (each loads that package's bundle)
    expect(pkg.exports['./agent/coding']).toEqual({
      types: './dist/entries/agent-coding.d.ts',
      import: './dist/entries/agent-coding.js',
    });
    expect(pkg.exports['./agent/models']).toEqual({
      types: './dist/entries/agent-models.d.ts',
      import: './dist/entries/agent-models.js',
    });
    expect(readFileSync(pkg.exports['./agent/coding'].import, 'utf8')).toContain(
      "export * from '@acp-kit/coding-agent';",
    );
    expect(readFileSync(pkg.exports['./agent/models'].import, 'utf8')).toContain(
      "export * from '@acp-kit/coding-agent/models';",
    );
    for (const e of ['./agent/coding', './agent/models']) {
      expect(existsSync(resolve(pkg.exports[e].types))).toBe(true);
      expect(existsSync(resolve(pkg.exports[e].import))).toBe(true);
    }
  });
});
