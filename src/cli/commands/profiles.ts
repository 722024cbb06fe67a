/** `acp-kit profiles list|show`: what the config file (config-file.ts) holds, checked on the way. */
import { configFilePath, profileAgentText, profileNamed, readConfigFile, type Profile } from '../config-file.js';
import { ExitCode } from '../exit-codes.js';
import { resultLine } from '../render/ndjson-events.js';
import { colorEnabled, createStyle, stripAnsi } from '../style.js';

function agentLine(p: Profile): string {
  return p.agent ? profileAgentText(p.agent) : '(built-in agent)';
}

/** `acp-kit profiles list [--json]`. */
export async function profilesListCommand(flags: { json?: boolean }): Promise<number> {
  const path = configFilePath();
  const file = await readConfigFile(path);
  const entries = Object.entries(file.profiles ?? {});
  if (flags.json) {
    for (const [name, profile] of entries)
      process.stdout.write(`${JSON.stringify({ type: 'profile', name, profile })}\n`);
    process.stdout.write(resultLine(ExitCode.Ok, { profiles: entries.length, file: path }));
    return ExitCode.Ok;
  }
  const style = createStyle(colorEnabled(process.stdout));
  if (entries.length === 0) {
    process.stdout.write(style.dim(`no profiles in ${path}\n`));
    return ExitCode.Ok;
  }
  const width = Math.max(...entries.map(([n]) => n.length));
  for (const [name, p] of entries) {
    const description = p.description ? `  ${style.dim(stripAnsi(p.description))}` : '';
    process.stdout.write(`${style.bold(name.padEnd(width))}  ${agentLine(p)}${description}\n`);
  }
  return ExitCode.Ok;
}

/** `acp-kit profiles show <name> [--json]`: the profile as stored (JSON), unknown names listing the known ones. */
export async function profilesShowCommand(name: string, flags: { json?: boolean }): Promise<number> {
  const path = configFilePath();
  const profile = profileNamed(await readConfigFile(path), name, path);
  process.stdout.write(
    flags.json
      ? `${JSON.stringify({ type: 'profile', name, profile })}\n${resultLine(ExitCode.Ok, { file: path })}`
      : `${JSON.stringify(profile, null, 2)}\n`,
  );
  return ExitCode.Ok;
}
