// The workspace packages (packages/<name>), each after the ones it depends on: the one list the build,
// the staleness check and the source scripts share.
export const PACKAGE_ORDER = ['protocol', 'agent', 'client', 'coding-agent', 'server', 'tools'];
