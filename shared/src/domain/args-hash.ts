import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal arguments always hash the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The hash an approval is bound to (SPEC §6.1): the executor refuses arguments that do not match it. */
export function argsHash(tool: string, args: unknown): string {
  return createHash('sha256')
    .update(`${tool}\n${canonicalJson(args)}`)
    .digest('hex');
}

/**
 * The hash a card is approved against. A retried card (`retryOf`) carries the same arguments as the card that
 * failed, yet must be approved afresh: its hash is bound to the card it retries, so no approval, audit entry or
 * executor check of the failed card can ever match the new one (issue 12: "a new action with a new hash").
 */
export function cardArgsHash(card: { tool: string; retryOf?: string | undefined }, args: unknown): string {
  if (!card.retryOf) return argsHash(card.tool, args);
  return createHash('sha256')
    .update(`${card.tool}\n${canonicalJson(args)}\nretry-of:${card.retryOf}`)
    .digest('hex');
}
