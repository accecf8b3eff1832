/** One figure a benchmark prints. `baseline` is measured in the same run (machines here are noisy). */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  /** value / baseline, when a baseline exists. */
  ratio?: number;
  /** The operating target from SPEC §7, for the printed comparison (e.g. "p99 < 50 ms", "≤ 1.3×"). */
  target?: string;
}

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] as number;
}
