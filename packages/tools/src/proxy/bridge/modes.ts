import type { ConfigOption, SelectConfigOption, SessionModeState } from '@acp-kit/protocol';

/**
 * v2 editor, v1 agent: v2 has no session modes, only a `category: "mode"` select config option
 * (ACP-V2-CFG-04). A v1 agent that offers `modes` and no such option (claude-code-acp does) would
 * leave a v2 editor without a mode switch; the bridge offers its modes as that option instead.
 * Its id is `mode`, or `mode-2`, `mode-3`... when the agent's own options already use it.
 */
export function modeOptionFromV1(modes: SessionModeState, taken: readonly ConfigOption[]): SelectConfigOption {
  const ids = new Set(taken.map((o) => o.configId));
  let configId = 'mode';
  for (let n = 2; ids.has(configId); n++) configId = `mode-${n}`;
  return {
    type: 'select',
    configId,
    name: 'Mode',
    category: 'mode',
    currentValue: modes.currentModeId,
    options: modes.availableModes.map((m) => ({
      value: m.id,
      name: m.name,
      ...(m.description != null ? { description: m.description } : {}),
    })),
  };
}

/** Whether the agent already offers a mode switch as a config option (then nothing is emulated). */
export function hasModeOption(options: readonly ConfigOption[] | undefined): boolean {
  return (options ?? []).some((o) => o.type === 'select' && o.category === 'mode');
}

/** `options` with the emulated mode option's current value set to `modeId`. */
export function withCurrentMode(options: readonly ConfigOption[], configId: string, modeId: string): ConfigOption[] {
  return options.map((o) => (o.configId === configId && o.type === 'select' ? { ...o, currentValue: modeId } : o));
}
