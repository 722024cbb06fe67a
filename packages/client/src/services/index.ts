/**
 * Client-side services for ACP v1 `fs/*`, `terminal/*`, `session/request_permission` and
 * `elicitation/create` (form fields, validation and answer policies):
 *
 * - {@link FileSystemSandbox}: `fs/read_text_file` / `fs/write_text_file` confined to a
 *   session's roots (`cwd` + `additionalDirectories`).
 * - {@link TerminalManager}: client-executed terminals (`terminal/create`, `output`,
 *   `wait_for_exit`, `kill`, `release`).
 * - Permission policies ({@link PermissionPolicy}): {@link approveAll}, {@link approveReads},
 *   {@link denyAll}, {@link interactive}, {@link rules}, {@link remembering}, {@link observed}; run them through
 *   {@link decidePermission} so cancellation and offered-option checks always apply.
 *
 * @module
 */
export {
  FileSystemSandbox,
  type FileSystemSandboxOptions,
  type ReadTextFileParams,
  type WriteTextFileParams,
} from './fs-sandbox.js';
export {
  TerminalManager,
  type ClientTerminalInfo,
  type CreateTerminalParams,
  type TerminalInfo,
  type TerminalManagerOptions,
} from './terminals.js';
export { TailByteBuffer } from './output-buffer.js';
export {
  elicitationFields,
  fieldProblem,
  readFieldAnswer,
  validateElicitationContent,
  type ElicitationField,
  type ElicitationValidation,
} from './elicitation-form.js';
export {
  answerElicitations,
  decideElicitation,
  declineElicitations,
  elicitationModes,
  readElicitationAnswers,
  urlConsent,
  type ElicitationContext,
  type ElicitationDecision,
  type ElicitationPolicy,
  type FormElicitationRequest,
  type UrlElicitationRequest,
} from './elicitation-policy.js';
export {
  approveAll,
  approveReads,
  decidePermission,
  denyAll,
  describePermissionDecision,
  interactive,
  observed,
  permissionFacts,
  READ_ONLY_KINDS,
  remembering,
  rules,
  selectedOption,
  selectOption,
  type KnownToolCall,
  type PermissionContext,
  type PermissionDecision,
  type PermissionDecisionReport,
  type PermissionPolicy,
  type PermissionRule,
  type RememberingOptions,
  type RememberingPolicy,
} from './permission-policy.js';
