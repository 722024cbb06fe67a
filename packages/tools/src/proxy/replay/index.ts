/**
 * Replay of captures: play the recorded agent to a live client ({@link replayAsAgent}) or drive
 * a live agent with the recorded client side ({@link replayAsClient}).
 * @module
 */
export {
  replayAsAgent,
  REPLAY_MISMATCH_CODE,
  type ReplayAgentOptions,
  type ReplayAgentResult,
  type ReplayDivergence,
} from './replay-agent.js';
export {
  replayAsClient,
  type ReplayClientOptions,
  type ReplayClientResult,
  type ReplayPermission,
} from './replay-client.js';
export { loadReplayScript, scriptFromFrames, type ReplayScript, type ScriptFrame } from './script.js';
export { ValueMap, RequestIdMap, ID_FIELDS, PATH_FIELDS } from './id-map.js';
