/**
 * `@acp-kit/client/errors`: the client's error classes and the helpers that read an auth-required
 * error, without the client runtime. For code that only reports errors (a CLI's error printer): it
 * can test `instanceof` without loading the connection, the services and `node:crypto`.
 *
 * @module
 */
export { RequestTimeoutError } from './request-timeout.js';
export { AgentStartupError, ConnectAbortedError } from './connect-abort.js';
export {
  authMethodsFromError,
  mergeAuthMethods,
  shellCommandLine,
  terminalLoginCommand,
  type TerminalLoginCommand,
} from './auth.js';
