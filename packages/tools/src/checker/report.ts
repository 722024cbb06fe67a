import type { CheckRun, RequirementResult } from './runner.js';
import type { Tier } from './requirements.js';

const TIERS: Tier[] = ['MUST', 'SHOULD', 'MAY', 'info', 'draft', 'unstable'];

/** The readable report: per protocol version, requirements grouped by tier, failures with evidence, the verdict. */
export function formatText(run: CheckRun, agent: string, subject: 'agent' | 'client' = 'agent'): string {
  const out: string[] = [`acp-kit check ${subject}: ${agent}`];
  for (const v of run.protocols) {
    out.push('', `Protocol v${v}`);
    const notSpoken = run.cases.find(
      (c) => c.protocol === v && c.name === 'initialize/basic' && c.status === 'not-applicable',
    );
    if (notSpoken) out.push(`  the agent does not speak v${v}: ${notSpoken.reason}`);
    for (const n of run.notRun?.filter((x) => x.protocol === v) ?? [])
      out.push(`  the handshake failed, ${n.cases} other case${n.cases === 1 ? '' : 's'} not run: ${n.reason}`);
    const reqs = run.requirements.filter((r) => r.protocol === v);
    for (const tier of TIERS) {
      const group = reqs.filter((r) => r.tier === tier);
      if (group.length === 0) continue;
      const failed = group.filter((r) => r.status === 'fail').length;
      out.push(
        `  ${tier} (${group.filter((r) => r.status === 'pass').length} pass, ${failed} fail, ${group.filter((r) => r.status === 'not-checked').length} not applicable)`,
      );
      for (const r of group) out.push(...formatRequirement(r));
    }
    if (subject === 'client')
      for (const c of run.cases.filter((x) => x.protocol === v && x.status === 'not-applicable'))
        out.push(`  n/a  ${c.name}: ${c.reason}`);
    const errors = run.cases.filter((c) => c.protocol === v && c.status === 'error');
    for (const c of errors) out.push(`  ERROR ${c.name}: ${c.reason}`);
  }
  const mustFails = run.requirements.filter((r) => r.status === 'fail' && r.tier === 'MUST').length;
  const otherFails = run.requirements.filter((r) => r.status === 'fail' && r.tier !== 'MUST').length;
  const errors = run.cases.filter((c) => c.status === 'error').length;
  out.push(
    '',
    `${run.cases.length} cases in ${(run.ms / 1000).toFixed(1)} s. Verdict: ${run.conformant ? 'CONFORMANT' : 'NOT CONFORMANT'}` +
      ` (${mustFails} MUST failure${mustFails === 1 ? '' : 's'}${otherFails ? `, ${otherFails} SHOULD/MAY/draft warning${otherFails === 1 ? '' : 's'}` : ''}${errors ? `, ${errors} case${errors === 1 ? '' : 's'} could not run` : ''})`,
    '',
  );
  return out.join('\n');
}

function formatRequirement(r: RequirementResult): string[] {
  const mark = r.status === 'pass' ? 'pass' : r.status === 'fail' ? 'FAIL' : 'n/a ';
  const lines = [`    ${mark}  ${r.id}  ${r.text}`];
  if (r.status !== 'fail') return lines;
  for (const f of r.failures.slice(0, 3)) {
    lines.push(`          [${f.case}] ${f.message ?? ''}`);
    for (const e of f.excerpt ?? []) lines.push(`            ${e}`);
  }
  if (r.failures.length > 3) lines.push(`          … and ${r.failures.length - 3} more`);
  return lines;
}

/** The machine-readable report (`--json`): one JSON document. */
export function formatJson(run: CheckRun, agent: string, subject: 'agent' | 'client' = 'agent'): string {
  return `${JSON.stringify({ [subject]: agent, conformant: run.conformant, protocols: run.protocols, ms: run.ms, ...(run.notRun ? { notRun: run.notRun } : {}), requirements: run.requirements, cases: run.cases.map(({ checks, ...c }) => ({ ...c, failed: checks.filter((x) => !x.ok).map((x) => x.id) })) }, null, 2)}\n`;
}

const xml = (s: string): string =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** JUnit XML (`--junit FILE`): one suite per protocol version, one test per requirement; SHOULD/MAY failures are reported as failures too, typed by tier. */
export function formatJunit(run: CheckRun, agent: string, subject: 'agent' | 'client' = 'agent'): string {
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`acp-kit check ${subject}: ${agent}`)}" time="${(run.ms / 1000).toFixed(3)}">`,
  ];
  for (const v of run.protocols) {
    const reqs = run.requirements.filter((r) => r.protocol === v);
    out.push(
      `  <testsuite name="ACP v${v}" tests="${reqs.length}" failures="${reqs.filter((r) => r.status === 'fail').length}" skipped="${reqs.filter((r) => r.status === 'not-checked').length}">`,
    );
    for (const r of reqs) {
      out.push(`    <testcase classname="${xml(`v${v}.${r.tier}`)}" name="${xml(`${r.id} ${r.text}`)}">`);
      if (r.status === 'not-checked') out.push(`      <skipped message="not applicable to this ${subject}"/>`);
      if (r.status === 'fail') {
        const body = r.failures
          .map((f) => `[${f.case}] ${f.message ?? ''}\n${(f.excerpt ?? []).join('\n')}`)
          .join('\n\n');
        out.push(
          `      <failure type="${r.tier}" message="${xml(r.failures[0]?.message ?? '')}">${xml(body)}</failure>`,
        );
      }
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
