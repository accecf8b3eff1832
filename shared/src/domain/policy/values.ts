import type { FactValue } from './facts';

const BARE = /^[a-z][A-Za-z0-9_]*$/;

/** Renders a constant the way it would be written in a rulebase: bare symbols, quoted strings, numbers. */
export function renderValue(v: FactValue): string {
  if (typeof v === 'number') return String(v);
  return BARE.test(v) ? v : JSON.stringify(v);
}

export function renderAtomText(pred: string, args: ReadonlyArray<FactValue | undefined>): string {
  if (args.length === 0) return pred;
  return `${pred}(${args.map((a) => (a === undefined ? '_' : renderValue(a))).join(', ')})`;
}

/**
 * JSON → rulebase constant. Booleans become the symbols `true`/`false` and null the symbol `null`, so rules
 * can match them (`contact(To, _, true)`); objects and arrays have no constant form and yield undefined.
 */
export function toFactValue(v: unknown): FactValue | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null) return 'null';
  return undefined;
}

/** Stable identity of an argument tuple (numbers and strings stay distinct: 1 ≠ "1"). */
export function argsKey(args: ReadonlyArray<FactValue>): string {
  return JSON.stringify(args);
}

/** Numeric view for ordering comparisons: numbers, and strings that are plain decimal numbers. */
export function asNumber(v: FactValue): number | undefined {
  if (typeof v === 'number') return v;
  return /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : undefined;
}
