/** `acp-kit replay`: its flags and help; the action (`replay.ts`) loads only when the command runs. */
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ExitResult } from '../options.js';

export function register(program: CommandUnknownOpts, result: ExitResult): void {
  program
    .command('replay')
    .description(
      'replay a capture: play the recorded agent to a live client, or drive a live agent with the recorded client side',
    )
    .argument('<capture>', 'capture file (acp-kit NDJSON or acp-devtools export)')
    .argument('[agent...]', 'with --as client: the agent command, after --')
    .addOption(
      new Option('--as <side>', 'the recorded side to play').choices(['agent', 'client']).makeOptionMandatory(),
    )
    .option('--fast', '--as agent: send recorded frames without the recorded gaps')
    .option('--speed <factor>', '--as agent: play the recorded gaps this many times faster (default 1)')
    .option('--record <file>', '--as client: record the new run to this capture')
    .addOption(
      new Option('--permission <answer>', "--as client: answer the agent's permission requests").choices([
        'recorded',
        'allow',
        'reject',
      ]),
    )
    .option('--cwd <dir>', "--as client: working directory of the live run (the recorded session's cwd maps onto it)")
    .option('--timeout <seconds>', '--as client: longest wait for one recorded answer (default 120)')
    .addHelpText(
      'after',
      '\nExamples:\n  acp-kit run --agent "acp-kit replay cap.ndjson --as agent --fast" "hello"\n  acp-kit replay cap.ndjson --as client --record new.ndjson -- acp-kit agent\nExit codes: 0 the whole recording was replayed, 1 the live side diverged (reported on stderr), 2 usage.\n',
    )
    .action(async (capture, agent, flags) => {
      result.code = await (await import('./replay.js')).replayCommand(capture, agent, flags);
    });
}
