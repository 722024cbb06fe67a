import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  installAgent,
  installDir,
  loadRegistry,
  parseAgentSpec,
  planInstall,
  registryDataRoot,
  findAgent,
  type Registry,
  type RegistryAgent,
} from '@acp-kit/tools/registry';
import { CliError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { resultLine } from '../render/ndjson-events.js';
import { registryAgent, registryCliError } from '../registry-agent.js';
import { joinCommandLine } from '../split-command-line.js';

export interface AgentsFlags {
  registry?: string;
  json?: boolean;
}

const say = (line: string) => void process.stderr.write(`acp-kit: ${line}\n`);

/** The registry for a command, its warnings on stderr; a source that fails is a usage-level error. */
async function registryFor(flags: AgentsFlags): Promise<Registry> {
  let r: Registry;
  try {
    r = await loadRegistry({ registry: flags.registry });
  } catch (e) {
    throw new CliError('registry_unavailable', ExitCode.Usage, e instanceof Error ? e.message : String(e), {
      hint: 'Check --registry / $ACP_KIT_REGISTRY, or drop them to use the official registry or the shipped snapshot.',
      cause: e,
    });
  }
  for (const w of r.warnings) say(w);
  return r;
}

const kinds = (a: RegistryAgent): string =>
  [
    ...(a.distribution.npx ? ['npx'] : []),
    ...(a.distribution.uvx ? ['uvx'] : []),
    ...(a.distribution.binary ? ['binary'] : []),
  ].join(',');

const sourceLine = (r: Registry): string =>
  `${r.agents.length} agents from ${r.source.location}${r.source.date ? ` (${r.source.date.slice(0, 10)})` : ''}`;

/** `acp-kit agents list [--json]`. */
export async function agentsListCommand(flags: AgentsFlags): Promise<number> {
  const r = await registryFor(flags);
  if (flags.json) {
    for (const a of r.agents) process.stdout.write(`${JSON.stringify({ type: 'agent', ...a })}\n`);
    process.stdout.write(resultLine(0, { agents: r.agents.length, source: r.source }));
    return 0;
  }
  const rows = r.agents.map((a) => [a.id, a.version, kinds(a), a.name]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]?.length ?? 0), 2));
  const pad = (row: string[]) => row.map((c, i) => (i < 3 ? c.padEnd(widths[i] ?? 0) : c)).join('  ');
  process.stdout.write(`${[pad(['ID', 'VERSION', 'DIST', 'NAME']), ...rows.map(pad)].join('\n')}\n${sourceLine(r)}\n`);
  return 0;
}

/** `acp-kit agents show <id>[@version]`. */
export async function agentsShowCommand(text: string, flags: AgentsFlags): Promise<number> {
  const spec = parseAgentSpec(text);
  if (!spec) throw usageError(`"${text}" is not an agent id`);
  const r = await registryFor(flags);
  let agent: RegistryAgent;
  try {
    agent = findAgent(r.agents, spec);
  } catch (e) {
    throw registryCliError(e);
  }
  const lines = [
    `${agent.name} (${agent.id}) ${agent.version}`,
    agent.description,
    ...(agent.repository ? [`repository: ${agent.repository}`] : []),
    ...(agent.license ? [`license: ${agent.license}`] : []),
    `distributions: ${kinds(agent)}`,
  ];
  try {
    const plan = planInstall(agent, spec.version);
    const dir = plan.kind === 'uvx' ? undefined : installDir(plan);
    const what =
      plan.kind === 'binary' ? `binary ${plan.platform} ${plan.target.archive}` : `${plan.kind} ${plan.spec}`;
    lines.push(`here: ${what}${plan.args.length ? ` ${joinCommandLine(plan.args)}` : ''}`);
    if (dir) lines.push(`${existsSync(dir) ? 'installed' : 'not installed'}: ${dir}`);
  } catch (e) {
    lines.push(`here: ${e instanceof Error ? e.message : String(e)}`);
  }
  lines.push(`source: ${sourceLine(r)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** `acp-kit agents install <id>[@version]`: prints the command line it starts with. */
export async function agentsInstallCommand(text: string, flags: AgentsFlags): Promise<number> {
  const a = await registryAgent(text, { registry: flags.registry, required: true, log: say });
  if (!a) throw usageError(`"${text}" is not an agent id`);
  process.stdout.write(`${a.display}\n${joinCommandLine([a.command, ...a.args])}\n`);
  return 0;
}

/** `acp-kit agents update`: the registry read fresh, then each installed agent brought to the registry's version. */
export async function agentsUpdateCommand(flags: AgentsFlags): Promise<number> {
  const r = await registryFor(flags);
  process.stdout.write(`${sourceLine(r)}\n`);
  const root = join(registryDataRoot(), 'agents');
  const ids = existsSync(root) ? readdirSync(root).sort() : [];
  let failed = 0;
  for (const id of ids) {
    const agent = r.agents.find((a) => a.id === id);
    if (!agent) {
      process.stdout.write(`${id}: no longer in the registry (left as is)\n`);
      continue;
    }
    try {
      const got = await installAgent(planInstall(agent), { log: say });
      process.stdout.write(`${id}: ${agent.version} ${got.installed ? 'installed' : 'already current'}\n`);
    } catch (e) {
      failed++;
      say(`${id}: ${registryCliError(e).message}`);
    }
  }
  if (ids.length === 0) process.stdout.write('no agents installed yet (acp-kit agents install <id>)\n');
  return failed > 0 ? ExitCode.AgentFailed : 0;
}
