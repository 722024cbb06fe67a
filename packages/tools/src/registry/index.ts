export type { Registry, RegistryAgent, Distribution, PackageDistribution, BinaryTarget, PlatformKey } from './types.js';
export { validateManifest, validateRegistry } from './validate.js';
export {
  loadRegistry,
  readSnapshot,
  registryDataRoot,
  OFFICIAL_REGISTRY_URL,
  type LoadRegistryOptions,
} from './source.js';
export {
  parseAgentSpec,
  planInstall,
  platformKey,
  findAgent,
  splitPackage,
  RegistryError,
  type RegistryErrorKind,
  type AgentSpec,
  type InstallPlan,
} from './distribution.js';
export { installAgent, installDir, type InstalledAgent, type InstallOptions } from './install.js';
export { runMatrix, type MatrixReport, type MatrixRow, type MatrixCheck, type MatrixOptions } from './matrix.js';
export { formatMatrix, matrixFormatOf, matrixHtml, matrixJson, matrixMarkdown } from './matrix-format.js';
export { probeHandshake, PROBED_METHODS, type HandshakeProbe, type ProbeOutcome } from './probe.js';
