import { createHash } from 'node:crypto';

/**
 * A model of Anthropic prompt caching, close enough that the agent's caching strategy can be tested against
 * it (SPEC §7: "after the first turn, at least 80% of input tokens are served from the cache").
 *
 * What it reproduces from the documented behaviour:
 * - the prompt is one sequence of blocks in the order tools → system → messages;
 * - a `cache_control` breakpoint (at most 4, plus the request-level automatic one on the last block) writes the
 *   prefix that ends at that block; only prefixes of at least the model's minimum cacheable length are written;
 * - a later request reads the longest prefix that was written before with the same bytes and has not expired,
 *   looking back up to 20 blocks before each of its own breakpoints (so a conversation whose breakpoint moves
 *   to the newest message still hits the prefix cached on the previous turn);
 * - a hit refreshes the entry's lifetime (5 minutes, or 1 hour with `ttl: '1h'`);
 * - `cache_control` markers are not part of the cached bytes, and each model has its own cache.
 * Token counts are approximate (characters / 4), which is all the tests need: the ratios, not the exact numbers.
 */

export interface PromptBlock {
  /** Canonical bytes of the block (without its cache_control marker). */
  text: string;
  breakpoint?: { ttl: '5m' | '1h' };
}

export interface CacheAccounting {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
const LOOKBACK_BLOCKS = 20;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Minimum cacheable prompt length per model (Anthropic's prompt-caching docs, "Cache limitations"; table kept in
 * test/contracts/vendor/anthropic/prompt-caching-minimums.json with its sources). A prefix shorter than this is
 * simply not cached — no error. Date snapshots share their alias's value.
 */
export const MIN_CACHEABLE_TOKENS: Readonly<Record<string, number>> = {
  'claude-opus-5': 512,
  'claude-fable-5': 512,
  'claude-mythos-5': 512,
  'claude-sonnet-5': 1024,
  'claude-opus-4-8': 1024,
  'claude-opus-4-7': 2048,
  'claude-opus-4-6': 4096,
  'claude-opus-4-5': 4096,
  'claude-haiku-4-5': 4096,
  'claude-mythos-preview': 4096,
  'claude-sonnet-4-6': 1024,
  'claude-sonnet-4-5': 1024,
};
/** Models the documentation we could read does not list (newer point releases): the common floor. */
const UNLISTED_MIN = 1024;

export function minCacheableTokens(model: string): number {
  const alias = model.replace(/-\d{8}$/, '');
  const exact = MIN_CACHEABLE_TOKENS[alias];
  if (exact !== undefined) return exact;
  // A point release of a family whose major version is listed (claude-opus-5-1 → claude-opus-5).
  const family = alias.match(/^(claude-[a-z]+-\d+)-\d+$/)?.[1];
  return (family ? MIN_CACHEABLE_TOKENS[family] : undefined) ?? UNLISTED_MIN;
}

export class PromptCacheModel {
  private readonly entries = new Map<string, { expiresAt: number; ttlMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  clear(): void {
    this.entries.clear();
  }

  /** Total prompt tokens, without touching the cache (what count_tokens answers). */
  static countTokens(blocks: PromptBlock[]): number {
    return blocks.reduce((sum, b) => sum + estimateTokens(b.text), 0);
  }

  account(model: string, blocks: PromptBlock[]): CacheAccounting {
    const now = this.now();
    const min = minCacheableTokens(model);
    const cumulative: number[] = [];
    const hashes: string[] = [];
    // A hash chain gives every block boundary a key for "the exact bytes of the prompt up to here".
    let chain = createHash('sha256').update(`model:${model}`).digest('hex');
    let total = 0;
    for (const block of blocks) {
      total += estimateTokens(block.text);
      chain = createHash('sha256').update(chain).update('\u0000').update(block.text).digest('hex');
      cumulative.push(total);
      hashes.push(chain);
    }

    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    const usage: CacheAccounting = {
      input_tokens: total,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    };
    if (breakpoints.length === 0) return usage;

    let readIndex = -1;
    for (const bp of breakpoints) {
      for (let i = bp; i >= Math.max(0, bp - LOOKBACK_BLOCKS + 1) && i > readIndex; i--) {
        const entry = this.entries.get(hashes[i]!);
        if (entry && entry.expiresAt > now) {
          readIndex = i;
          break;
        }
      }
    }
    const read = readIndex >= 0 ? cumulative[readIndex]! : 0;
    if (readIndex >= 0) {
      const entry = this.entries.get(hashes[readIndex]!)!;
      entry.expiresAt = now + entry.ttlMs;
    }

    let written = read;
    for (const bp of breakpoints) {
      if (bp <= readIndex || cumulative[bp]! < min) continue;
      const ttl = blocks[bp]!.breakpoint!.ttl;
      const segment = cumulative[bp]! - written;
      written = cumulative[bp]!;
      if (ttl === '1h') usage.cache_creation.ephemeral_1h_input_tokens += segment;
      else usage.cache_creation.ephemeral_5m_input_tokens += segment;
      this.entries.set(hashes[bp]!, { expiresAt: now + TTL_MS[ttl], ttlMs: TTL_MS[ttl] });
    }

    usage.cache_read_input_tokens = read;
    usage.cache_creation_input_tokens = written - read;
    usage.input_tokens = total - written;
    return usage;
  }
}
