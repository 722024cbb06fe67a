/**
 * The part of this machine's environment that says how it reaches the npm registry: CA bundles
 * (a TLS-inspecting proxy signs with its own root), proxies and npm's own network settings. Tests that
 * give a command a minimal environment (a fresh HOME, nothing of the machine's set-up) and still let
 * npm install from the registry pass these through, as a user's shell would: without them npm fails
 * with SELF_SIGNED_CERT_IN_CHAIN behind such a proxy (seen on a fresh machine).
 */
const NETWORK_VARS = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'npm_config_registry',
  'npm_config_cafile',
  'npm_config_proxy',
  'npm_config_https_proxy',
  'npm_config_noproxy',
  'npm_config_strict_ssl',
];

/** Those of {@link NETWORK_VARS} that are set here. */
export function registryNetworkEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of NETWORK_VARS) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
