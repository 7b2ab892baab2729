/**
 * The report's "How this run was made" section: the code, each strategy's parameters, the input
 * files with their SHA-256, and the whole configuration as run (collapsed), from the result's
 * provenance record.
 */
import type { BacktestResult } from './result.js';
import { escapeHtml } from './reportTables.js';

/** The section's HTML; empty for a result without a record. */
export function provenanceSection(r: BacktestResult): string {
  const p = r.provenance;
  if (p === undefined) return '';
  const k = p.kancil;
  const code = `kancil ${k.version}${k.commit === null ? ' (not a git checkout)' : ` at commit ${k.commit}${k.clean === false ? ', with uncommitted changes' : ''}`}`;
  const bt = p.config.backtest;
  const models = `fees ${bt.fees.makerBps} / ${bt.fees.takerBps} bps (maker / taker), fill model ${bt.fillModel}, queue model ${JSON.stringify(bt.queueModel)}, feed ${JSON.stringify(bt.feed)}, latency ${JSON.stringify(bt.latency)}`;
  const strategies = p.strategies.map((s) => `<tr><td>${escapeHtml(s.name)}</td><td>${escapeHtml(s.plugin)}</td><td><code>${escapeHtml(JSON.stringify(s.params))}</code></td></tr>`).join('');
  const inputs = p.inputs.map((i) => `<tr><td>${escapeHtml(i.role)}</td><td>${escapeHtml(i.path)}</td><td>${i.bytes}</td><td><code>${i.sha256}</code></td></tr>`).join('');
  return `<h2>How this run was made</h2>
<p>${escapeHtml(code)}; config ${escapeHtml(p.configFile)}</p>
<p>${escapeHtml(models)}</p>
<table><tr><th>strategy</th><th>plugin</th><th>parameters as run</th></tr>${strategies}</table>
<table><tr><th>input</th><th>file</th><th>bytes</th><th>SHA-256</th></tr>${inputs}</table>
<details><summary>configuration as run</summary><pre>${escapeHtml(JSON.stringify(p.config, null, 2))}</pre></details>
`;
}
