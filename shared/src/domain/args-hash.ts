import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal arguments always hash the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Plain loops, not entries/filter/sort/map chains: a tool result is canonicalised for every prompt.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i ? ',' : ''}${canonicalJson(value[i])}`;
    return `${out}]`;
  }
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = o[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
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
