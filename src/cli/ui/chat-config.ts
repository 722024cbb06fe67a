/**
 * The chat's `/mode`, `/model` and `/config` commands: without an argument they list the choices
 * (the current one marked), with one they set it through the session (session-config.ts: config
 * options first, v1 legacy modes as the fallback). They are the chat's own, ahead of an agent
 * command of the same name: they change the session through the protocol, not through a prompt.
 */
import { CliError } from '../errors.js';
import {
  applyChoice,
  choiceByCategory,
  choiceById,
  configChoices,
  describeChoice,
  type ConfigurableSession,
} from '../session-config.js';
import type { Note } from './chat-model.js';

/** The command names this module answers. */
export const CONFIG_COMMANDS = ['mode', 'model', 'config'] as const;

/** `/mode x` → `{ name: 'mode', arg: 'x' }`; `undefined` for any other text. */
export function parseConfigCommand(text: string): { name: (typeof CONFIG_COMMANDS)[number]; arg: string } | undefined {
  const m = /^\/(mode|model|config)(?:\s+(.*))?$/s.exec(text.trim());
  const name = CONFIG_COMMANDS.find((c) => c === m?.[1]);
  return name ? { name, arg: (m?.[2] ?? '').trim() } : undefined;
}

/** `/config id=value` or `/config id value`; `/config id` shows that one. */
function splitConfigArg(arg: string): { id: string; value?: string } {
  const eq = arg.indexOf('=');
  const sp = arg.search(/\s/);
  const cut = eq > 0 && (sp < 0 || eq < sp) ? eq : sp;
  if (cut <= 0) return { id: arg };
  return { id: arg.slice(0, cut), value: arg.slice(cut + 1).trim() };
}

/**
 * Runs one config command; the note says what is offered or what was set. Usage problems (an
 * unknown id or value) and the agent's errors come back as error notes listing what is valid.
 */
export async function runConfigCommand(
  session: ConfigurableSession,
  cmd: { name: (typeof CONFIG_COMMANDS)[number]; arg: string },
): Promise<Note> {
  try {
    const choices = configChoices(session.state);
    if (cmd.name === 'config') {
      if (cmd.arg === '')
        return {
          kind: 'info',
          text:
            choices.length > 0
              ? choices.map(describeChoice).join('\n')
              : 'this session offers no config options or modes',
        };
      const { id, value } = splitConfigArg(cmd.arg);
      const choice = choiceById(choices, id, '/config');
      if (value === undefined || value === '') return { kind: 'info', text: describeChoice(choice) };
      const set = await applyChoice(session, choice, value, `/config ${id}`);
      return { kind: 'info', text: `${choice.name} set to ${String(set.value)}` };
    }
    const choice = choiceByCategory(choices, cmd.name);
    if (cmd.arg === '') return { kind: 'info', text: describeChoice(choice) };
    const set = await applyChoice(session, choice, cmd.arg, `/${cmd.name}`);
    return { kind: 'info', text: `${choice.name} set to ${String(set.value)}` };
  } catch (e) {
    const text =
      e instanceof CliError
        ? `${e.message.replace(/^--(mode|model)/, '/$1')}${e.hint ? `\n${e.hint}` : ''}`
        : e instanceof Error
          ? e.message
          : String(e);
    return { kind: 'error', text };
  }
}
