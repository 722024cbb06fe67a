#!/usr/bin/env node
// Regenerates the ACP Registry snapshot that @acp-kit/tools ships (packages/tools/registry-data/):
// `snapshot.json` in the registry.json format (what `acp-kit agents` falls back to offline) and
// `snapshot.source.json` (where it came from: repository, commit, commit date, generation date).
// Input: a clone of github.com/agentclientprotocol/registry, bare or not; the manifests are read
// from its HEAD commit with git, so an unpacked working tree is not needed.
// Usage: node scripts/registry-snapshot.mjs <registry git dir or checkout> [out dir]
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [input, outArg] = process.argv.slice(2);
if (!input) {
  process.stderr.write('usage: node scripts/registry-snapshot.mjs <registry git dir or checkout> [out dir]\n');
  process.exit(2);
}
const out = resolve(outArg ?? join(import.meta.dirname, '..', 'packages', 'tools', 'registry-data'));
const git = (...args) => execFileSync('git', ['-C', input, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });

const commit = git('rev-parse', 'HEAD').trim();
const commitDate = git('log', '-1', '--format=%cI', 'HEAD').trim();
// one manifest per top-level folder (`<id>/agent.json`, or `agents/<id>/agent.json` in later
// layouts); folders starting with `_` or `.` hold manifests the registry does not publish
const manifests = git('ls-tree', '-r', '--name-only', 'HEAD')
  .split('\n')
  .filter((p) => /^(agents\/)?[^_./][^/]*\/agent\.json$/.test(p))
  .sort();
const agents = manifests.map((p) => JSON.parse(git('show', `HEAD:${p}`)));
agents.sort((a, b) => String(a.id).localeCompare(String(b.id)));
writeFileSync(join(out, 'snapshot.json'), `${JSON.stringify({ version: '1.0.0', agents, extensions: [] }, null, 2)}\n`);
writeFileSync(
  join(out, 'snapshot.source.json'),
  `${JSON.stringify(
    {
      repository: 'https://github.com/agentclientprotocol/registry',
      commit,
      commitDate,
      generatedAt: new Date().toISOString().slice(0, 10),
      agents: agents.length,
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(`registry-snapshot: ${agents.length} agents from ${commit} (${commitDate}) -> ${out}\n`);
