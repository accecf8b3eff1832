import { PolicyQueryError } from './errors';

/*
 * The paths a binding uses to read a tool's JSON result: dotted keys, `[n]` indexes and `[*]` for every
 * element ("contacts[*]", "phoneNumbers[*].value", "data.items[0].id"). This is deliberately a tiny subset
 * of JSONPath: team-edited rulebases must not be able to run filter scripts (JSONPath libraries evaluate
 * `?()` expressions), and the subset needs no dependency.
 */
export type PathStep = { key: string } | { index: number } | { all: true };

const STEP = /^(?:\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+|\*)\])/;

export function parsePath(path: string): PathStep[] {
  let rest = path.trim();
  if (rest.startsWith('$')) rest = rest.slice(1);
  const steps: PathStep[] = [];
  while (rest.length > 0) {
    const m = STEP.exec(rest);
    if (!m) throw new PolicyQueryError(`invalid JSON path "${path}" near "${rest}"`);
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else if (m[2] === '*') steps.push({ all: true });
    else steps.push({ index: Number(m[2]) });
    rest = rest.slice(m[0].length);
  }
  return steps;
}

/** Every value the path reaches (several when it passes through `[*]`); missing keys reach nothing. */
export function selectPath(root: unknown, steps: readonly PathStep[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('key' in step) {
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && step.key in v) {
          next.push((v as Record<string, unknown>)[step.key]);
        }
      } else if ('index' in step) {
        if (Array.isArray(v) && step.index < v.length) next.push(v[step.index]);
      } else if (Array.isArray(v)) {
        next.push(...v);
      }
    }
    current = next;
  }
  return current;
}
