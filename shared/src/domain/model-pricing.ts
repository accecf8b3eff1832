/**
 * What a model call costs, for the per-run cost metric: a pure table, so the agent loop can add it up without
 * reaching into the Anthropic adapter (issue 14).
 */
/** USD per million tokens (input, output, cache read, cache write); used for the per-run cost metric. */
const PRICES: Record<string, [number, number, number, number]> = {
  sonnet: [3, 15, 0.3, 3.75],
  haiku: [1, 5, 0.1, 1.25],
  opus: [15, 75, 1.5, 18.75],
};

export function costUsd(
  model: string,
  u: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number },
) {
  const key = Object.keys(PRICES).find((k) => model.includes(k)) ?? 'sonnet';
  const [i, o, r, w] = PRICES[key] as [number, number, number, number];
  return (
    (u.inputTokens * i + u.outputTokens * o + u.cacheReadTokens * r + u.cacheWriteTokens * w) / 1_000_000
  );
}
