import type { CheckCase } from '../case.js';
import { cancelTurn, closeBusySession } from './cancel.js';
import { cancelRequest } from './cancel-request.js';
import { cancelTerminal, cancelToolCall } from './entity-cancel.js';
import { customPromptBlock, extensionMethods, metaEverywhere } from './extensions.js';
import { initializeBasic, initializeOldVersion, initializeUnknownVersion, logout } from './initialize.js';
import { mcpClientServer } from './mcp.js';
import { setModeV1 } from './modes.js';
import { batchBehaviour, idsEchoed, malformedInput, notificationsUnanswered } from './jsonrpc.js';
import { imagePrompt, promptLifecycleV2, promptTurnV1, promptUnknownSessionV2 } from './prompt.js';
import {
  sessionClose,
  sessionDelete,
  sessionIdsUnique,
  sessionList,
  sessionLoadV1,
  sessionResumeV2,
  setConfigOption,
} from './sessions.js';
import { sessionResumeV1 } from './session-bugs.js';
import { exitOnEof } from './stdout.js';
import { authStatus, providers } from './unstable-auth.js';
import { mcpOverAcp } from './mcp-over-acp.js';
import { sessionArchive, sessionFork, sessionSetTitle, sessionStatus } from './unstable-sessions.js';

/** Every case, in report order. */
export const ALL_CASES: readonly CheckCase[] = [
  initializeBasic,
  initializeUnknownVersion,
  initializeOldVersion,
  sessionList,
  sessionIdsUnique,
  sessionClose,
  sessionDelete,
  setConfigOption,
  setModeV1,
  sessionLoadV1,
  sessionResumeV1,
  sessionResumeV2,
  promptTurnV1,
  promptLifecycleV2,
  promptUnknownSessionV2,
  imagePrompt,
  logout,
  mcpClientServer,
  // the unstable methods (schema.unstable.json), each only when advertised: reported, never in the verdict
  sessionFork,
  sessionArchive,
  sessionSetTitle,
  sessionStatus,
  authStatus,
  providers,
  mcpOverAcp,
  cancelTurn,
  closeBusySession,
  cancelToolCall,
  cancelTerminal,
  cancelRequest,
  extensionMethods,
  metaEverywhere,
  customPromptBlock,
  idsEchoed,
  notificationsUnanswered,
  malformedInput,
  batchBehaviour,
  exitOnEof,
];
