import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow } from './types';

/**
 * `npm run bench`: runs every scripts/bench/*.bench.ts (or those named on the command line) and prints
 * each figure beside its same-run baseline and the SPEC §7 target. Figures, not pass/fail: these machines
 * are noisy, so only ratios against a baseline measured in the same run are compared.
 */
const only = process.argv.slice(2);
const dir = import.meta.dirname;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const fmt = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? '' : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3);

for (const f of files) {
  const mod = (await import(join(dir, f))) as { run?: () => Promise<BenchRow[]> };
  if (!mod.run) continue;
  console.log(`\n== ${f.replace('.bench.ts', '')}`);
  const started = Date.now();
  try {
    const rows = await mod.run();
    console.table(
      rows.map((r) => ({
        figure: r.name,
        value: `${fmt(r.value)} ${r.unit}`,
        baseline: r.baseline === undefined ? '' : `${fmt(r.baseline)} ${r.unit}`,
        ratio: r.ratio === undefined ? '' : `${fmt(r.ratio)}×`,
        target: r.target ?? '',
      })),
    );
  } catch (e) {
    console.error(`  failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
  console.log(`  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
process.exit();
