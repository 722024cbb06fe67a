/**
 * Session configuration from the CLI (`--mode`, `--model`, `--config id=value` of `run` and
 * `chat`, chat's `/mode`, `/model`, `/config`), for any agent. Config options come first: v2
 * agents and newer v1 agents express mode and model as options of category `mode`/`model`
 * (ACP-ALL-CFG-06); a v1 agent without a mode option falls back to its legacy `modes` and
 * `session/set_mode` (ACP-V1-MODE-02). The 2.4.0 schemas have no `session/set_model` (neither
 * stable nor unstable, v1 or v2): a model is chosen only through a `model` config option.
 */
import type { ClientSession } from '@acp-kit/client';
import type { ConfigOption, SessionModeState, SessionState } from '@acp-kit/protocol';
import { usageError } from './errors.js';

/** What a session needs for configuration (a {@link ClientSession}, or the one under a reconnecting session). */
export type ConfigurableSession = Pick<ClientSession, 'state' | 'setConfigOption' | 'setMode'>;

/** What the user asked for, in the order it is applied: `--config` pairs, then mode, then model. */
export interface ConfigRequest {
  mode?: string;
  model?: string;
  /** `--config id=value`, as typed */
  config?: readonly string[];
}

/** One setting the session offers, as the CLI lists it. */
export interface ConfigChoice {
  /** the config option's id, or `mode` for v1 legacy modes */
  id: string;
  name: string;
  category?: string;
  /** `option`: a config option (set_config_option); `modes`: v1 legacy modes (set_mode) */
  via: 'option' | 'modes';
  current: string | boolean;
  /** the values it takes (booleans: true, false); empty for a type this CLI does not know */
  values: Array<{ value: string; name: string }>;
}

/** What was applied, for `run --json` and the chat's note. */
export interface AppliedSetting {
  id: string;
  value: string | boolean;
  via: 'option' | 'modes';
}

/** The config state `run --json` reports after applying the flags. */
export interface ConfigReport {
  applied: AppliedSetting[];
  configOptions: ConfigOption[];
  modes?: SessionModeState;
}

function optionValues(o: ConfigOption): Array<{ value: string; name: string }> {
  if (o.type === 'boolean')
    return [
      { value: 'true', name: 'on' },
      { value: 'false', name: 'off' },
    ];
  if (o.type !== 'select' || !Array.isArray(o.options)) return [];
  const out: Array<{ value: string; name: string }> = [];
  for (const entry of o.options) {
    // a group holds options; a plain entry is one
    const items = 'groupId' in entry ? entry.options : [entry];
    for (const i of items) out.push({ value: i.value, name: i.name });
  }
  return out;
}

/** Everything the session lets the user set: its config options, and v1 legacy modes when no option has category `mode`. */
export function configChoices(state: Pick<SessionState, 'configOptions' | 'modes'>): ConfigChoice[] {
  const choices: ConfigChoice[] = state.configOptions.map((o) => ({
    id: o.configId,
    name: o.name,
    ...(typeof o.category === 'string' ? { category: o.category } : {}),
    via: 'option',
    current: typeof o.currentValue === 'string' || typeof o.currentValue === 'boolean' ? o.currentValue : '',
    values: optionValues(o),
  }));
  if (state.modes && !choices.some((c) => c.category === 'mode')) {
    choices.push({
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      via: 'modes',
      current: state.modes.currentModeId,
      values: state.modes.availableModes.map((m) => ({ value: m.id, name: m.name })),
    });
  }
  return choices;
}

/** The setting of a category (`mode`, `model`), if the session has one. */
export function choiceOfCategory(choices: readonly ConfigChoice[], category: string): ConfigChoice | undefined {
  return choices.find((c) => c.category === category);
}

const quoteList = (xs: readonly string[]): string => xs.map((x) => JSON.stringify(x)).join(', ');

/** The typed value as the option wants it (booleans from true/false/on/off), or a usage error listing the valid ones. */
function checkedValue(choice: ConfigChoice, raw: string, flag: string): string | boolean {
  if (typeof choice.current === 'boolean') {
    const v = raw.toLowerCase();
    if (v === 'true' || v === 'on') return true;
    if (v === 'false' || v === 'off') return false;
    throw usageError(
      `${flag}: ${JSON.stringify(choice.id)} is on/off; got ${JSON.stringify(raw)}`,
      'Use true or false.',
    );
  }
  const values = choice.values.map((v) => v.value);
  // an option of a type this CLI does not know: the agent judges the value
  if (values.length === 0 || values.includes(raw)) return raw;
  throw usageError(
    `${flag}: ${JSON.stringify(raw)} is not a value of ${JSON.stringify(choice.id)}`,
    `Valid values: ${quoteList(values)}.`,
  );
}

/** Sets one choice to a typed value (checked first); returns what was applied. */
export async function applyChoice(
  session: ConfigurableSession,
  choice: ConfigChoice,
  raw: string,
  flag: string,
): Promise<AppliedSetting> {
  const value = checkedValue(choice, raw, flag);
  if (choice.via === 'modes') {
    if (typeof value !== 'string') throw usageError(`${flag}: a mode is a string`);
    await session.setMode(value);
  } else {
    await session.setConfigOption(choice.id, value);
  }
  return { id: choice.id, value, via: choice.via };
}

/** `--config id=value` split, or a usage error. */
export function splitConfigPair(pair: string): { id: string; value: string } {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw usageError(`--config ${JSON.stringify(pair)}: expected <id>=<value>`, 'e.g. --config mode=ask');
  return { id: pair.slice(0, eq), value: pair.slice(eq + 1) };
}

/** The choice `--config <id>` names, or a usage error listing the ids the agent offers. */
export function choiceById(choices: readonly ConfigChoice[], id: string, flag = '--config'): ConfigChoice {
  const c = choices.find((x) => x.id === id);
  if (c) return c;
  throw usageError(
    `${flag}: the agent offers no setting ${JSON.stringify(id)}`,
    choices.length > 0
      ? `Settings of this session: ${quoteList(choices.map((x) => x.id))}.`
      : 'This session offers no config options or modes.',
  );
}

/** The choice of a category (`--mode`, `--model`), or a usage error saying what the agent offers. */
export function choiceByCategory(choices: readonly ConfigChoice[], category: 'mode' | 'model'): ConfigChoice {
  const c = choiceOfCategory(choices, category);
  if (c) return c;
  const how =
    category === 'mode'
      ? 'no config option with category "mode" and no modes'
      : 'no config option with category "model" (ACP 2.4.0 has no session/set_model)';
  throw usageError(
    `--${category}: the agent offers ${how}`,
    choices.length > 0 ? `Settings of this session: ${quoteList(choices.map((x) => x.id))}.` : undefined,
  );
}

/**
 * Applies `--config`, `--mode`, `--model` to an open session, in that order, each checked against
 * what the session offers now (an earlier setting may change the list: the agent answers the full
 * list, ACP-ALL-CFG-06). Unknown ids and values are usage errors listing the valid ones.
 */
export async function applyConfigRequest(session: ConfigurableSession, req: ConfigRequest): Promise<AppliedSetting[]> {
  const applied: AppliedSetting[] = [];
  for (const pair of req.config ?? []) {
    const { id, value } = splitConfigPair(pair);
    applied.push(await applyChoice(session, choiceById(configChoices(session.state), id), value, `--config ${id}`));
  }
  if (req.mode !== undefined)
    applied.push(
      await applyChoice(session, choiceByCategory(configChoices(session.state), 'mode'), req.mode, '--mode'),
    );
  if (req.model !== undefined)
    applied.push(
      await applyChoice(session, choiceByCategory(configChoices(session.state), 'model'), req.model, '--model'),
    );
  return applied;
}

/**
 * The request of `run`/`chat` flags. The built-in agent's `--model` chose its backend at launch
 * (agent-command.ts), so it is not a session setting there.
 */
export function configRequestOf(
  flags: { mode?: string; model?: string; config?: string[] },
  builtInAgent: boolean,
): ConfigRequest {
  return {
    ...(flags.mode !== undefined ? { mode: flags.mode } : {}),
    ...(flags.model !== undefined && !builtInAgent ? { model: flags.model } : {}),
    ...(flags.config ? { config: flags.config } : {}),
  };
}

/** True when the request asks for anything. */
export function hasConfigRequest(req: ConfigRequest): boolean {
  return req.mode !== undefined || req.model !== undefined || (req.config?.length ?? 0) > 0;
}

/** One line for headers: `mode ask · model demo · effort high` (the current value's name where there is one). */
export function configSummary(choices: readonly ConfigChoice[]): string {
  return choices
    .map((c) => {
      const shown = typeof c.current === 'boolean' ? (c.current ? 'on' : 'off') : c.current;
      return `${c.category === 'mode' || c.category === 'model' ? c.category : c.id} ${shown}`;
    })
    .join(' · ');
}

/** The chat's listing of one setting: every value, the current one marked. */
export function describeChoice(c: ConfigChoice): string {
  const current = typeof c.current === 'boolean' ? String(c.current) : c.current;
  const lines = c.values.map(
    (v) => `${v.value === current ? '●' : '○'} ${v.value}${v.name !== v.value ? ` — ${v.name}` : ''}`,
  );
  return [`${c.name} (${c.id}):`, ...(lines.length > 0 ? lines : [`  current: ${current}`])].join('\n');
}
