/**
 * The coding agent's turn engine, one concept per file: the turn loop (`turn.ts`), one model
 * request (`model-step.ts`), announcing and running tool calls (`tool-call.ts`) and the
 * permission gate (`permission.ts`). This module keeps the engine's public names in one place.
 */
export { DEFAULT_MAX_TURN_REQUESTS, promptText, promptToUserMessage, runTurn, type EngineOptions } from './turn.js';
export { PLAN_ID, UPDATE_PLAN_TOOL } from './tool-call.js';
export { PERMISSION_OPTIONS } from './permission.js';
