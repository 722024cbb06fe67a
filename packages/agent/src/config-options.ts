import {
  AcpError,
  type ConfigOption,
  type ConfigSelectGroup,
  type ConfigSelectOption,
  type SessionModeState,
} from '@acp-kit/protocol';
import type { ConfigValues } from './session-store.js';

type SelectOption = Extract<ConfigOption, { type: 'select' }>;

/** Every value a select option offers, flattening groups. */
export function selectValues(option: SelectOption): ConfigSelectOption[] {
  const out: ConfigSelectOption[] = [];
  for (const o of option.options) {
    if (isGroup(o)) out.push(...o.options);
    else out.push(o);
  }
  return out;
}

function isGroup(o: ConfigSelectOption | ConfigSelectGroup): o is ConfigSelectGroup {
  return 'groupId' in o && Array.isArray(o.options);
}

function isSelect(o: ConfigOption): o is SelectOption {
  return o.type === 'select' && Array.isArray(o.options);
}

/**
 * Checks a `session/set_config_option` against the current options (ACP-V2-CFG-05, ACP-ALL-CFG-07):
 * an unknown `configId`, a value not offered or of the wrong type is -32602 naming the field.
 */
export function checkConfigValue(options: readonly ConfigOption[], configId: string, value: unknown): ConfigOption {
  const option = options.find((o) => o.configId === configId);
  if (!option) {
    const known = options.map((o) => o.configId);
    throw AcpError.invalidParams(
      `params.configId: no config option ${JSON.stringify(configId)} in this session (known: ${known.length ? known.join(', ') : 'none'})`,
      {
        path: 'params.configId',
      },
    );
  }
  if (isSelect(option)) {
    const values = selectValues(option).map((v) => v.value);
    if (typeof value !== 'string' || !values.includes(value)) {
      throw AcpError.invalidParams(
        `params.value: ${JSON.stringify(value)} is not a value of config option ${JSON.stringify(configId)} (expected one of ${values.map((v) => JSON.stringify(v)).join(', ')})`,
        {
          path: 'params.value',
        },
      );
    }
  } else if (option.type === 'boolean') {
    if (typeof value !== 'boolean') {
      throw AcpError.invalidParams(
        `params.value: config option ${JSON.stringify(configId)} is a boolean (got ${JSON.stringify(value)})`,
        { path: 'params.value' },
      );
    }
  } else {
    throw AcpError.invalidParams(
      `params.configId: config option ${JSON.stringify(configId)} has type ${JSON.stringify(option.type)}, which this agent cannot set`,
      {
        path: 'params.configId',
      },
    );
  }
  return option;
}

/** A copy of `options` with `configId` set to `value` (already checked). */
export function withValue(options: readonly ConfigOption[], configId: string, value: string | boolean): ConfigOption[] {
  return options.map((o): ConfigOption => {
    if (o.configId !== configId) return o;
    // (checked already: a select gets a string, a boolean option a boolean)
    if (o.type === 'select') return typeof value === 'string' ? { ...o, currentValue: value } : o;
    if (o.type === 'boolean') return typeof value === 'boolean' ? { ...o, currentValue: value } : o;
    return { ...o, currentValue: value };
  });
}

/** The current values, for the store. */
export function configValues(options: readonly ConfigOption[]): ConfigValues {
  const out: ConfigValues = {};
  for (const o of options) {
    const v = 'currentValue' in o ? o.currentValue : undefined;
    if (typeof v === 'string' || typeof v === 'boolean') out[o.configId] = v;
  }
  return out;
}

/** Restores stored values onto fresh options; values no longer valid are dropped (defaults stay). */
export function restoreValues(options: readonly ConfigOption[], values: ConfigValues | undefined): ConfigOption[] {
  let out = [...options];
  if (!values) return out;
  for (const [id, v] of Object.entries(values)) {
    try {
      checkConfigValue(out, id, v);
      out = withValue(out, id, v);
    } catch {
      /* the agent no longer offers it */
    }
  }
  return out;
}

/** The `category: "mode"` select option v1 modes map onto. */
export function modeOption(options: readonly ConfigOption[]): SelectOption | undefined {
  return options.find((o): o is SelectOption => isSelect(o) && o.category === 'mode');
}

/** v1 `modes` derived from the mode option (ACP-V1-CFG-04: kept in sync by construction). */
export function modesOf(options: readonly ConfigOption[]): SessionModeState | null {
  const m = modeOption(options);
  if (!m) return null;
  return {
    currentModeId: m.currentValue,
    availableModes: selectValues(m).map((v) => ({
      id: v.value,
      name: v.name,
      ...(v.description != null ? { description: v.description } : {}),
    })),
  };
}
