/**
 * Proxy chains (Proxy Chains RFD): a conductor that runs components in front of an agent, the
 * component API to write one, and the trace the conductor writes.
 * @packageDocumentation
 */
export { startConductor, type ChainNode, type ConductorOptions, type ConductorHandle } from './conductor.js';
export type { ChainCommand, ChainComponent, InProcessComponent } from './links.js';
export { TraceWriter, type TraceEvent } from './trace.js';
export {
  defineComponent,
  runComponent,
  type ComponentContext,
  type ComponentDefinition,
  type ComponentHandle,
  type ComponentSide,
  type RawHandler,
  type RunComponentOptions,
  type UpdateEvent,
} from './component.js';
export { runComponentIfMain } from './run-if-main.js';
export {
  ComponentModuleError,
  componentDefinitionProblem,
  loadComponentModule,
  loadComponentModules,
} from './load-component.js';
export { checkProxy, type ProxyCaseResult, type ProxyCheckReport } from './check-proxy.js';
