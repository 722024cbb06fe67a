/**
 * Why foreground work ended. v1's set is closed (ACP-V1-STOP-01); v2 adds `error` and
 * custom `_`-prefixed reasons (ACP-V2-STOP-01). The v1 codec degrades the extras.
 */
export type StopReason =
  'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | 'error' | (string & {});

export const V1_STOP_REASONS: readonly string[] = [
  'end_turn',
  'max_tokens',
  'max_turn_requests',
  'refusal',
  'cancelled',
];
export const V2_STOP_REASONS: readonly string[] = [...V1_STOP_REASONS, 'error'];

/** Foreground state of a session (v2 `state_update`; derived from the prompt request in v1). */
export type ForegroundState = 'idle' | 'running' | 'requires_action' | (string & {});
