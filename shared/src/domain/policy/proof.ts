import { DateTime } from 'luxon';
import type { ProofNode } from './solver';

export interface RenderOpts {
  now: Date;
  timezone: string;
  /** Approval cards have room for a screenful, not a full trace. */
  maxLines?: number;
}

function until(expiresAt: number, o: RenderOpts, memo: Map<number, string>): string {
  const known = memo.get(expiresAt);
  if (known !== undefined) return known;
  const at = DateTime.fromSeconds(expiresAt, { zone: o.timezone });
  const today = DateTime.fromJSDate(o.now, { zone: o.timezone });
  const text = at.hasSame(today, 'day') ? at.toFormat('HH:mm') : at.toFormat('yyyy-LL-dd HH:mm');
  memo.set(expiresAt, text);
  return text;
}

function describe(n: ProofNode, o: RenderOpts, memo: Map<number, string>): string {
  const valid =
    n.expiresAt !== undefined && n.kind === 'fact' ? `, valid until ${until(n.expiresAt, o, memo)}` : '';
  switch (n.kind) {
    case 'rule':
      return `${n.text} — by the rule at ${n.source}`;
    case 'fact': {
      const p = n.provenance;
      const from =
        p?.kind === 'tool'
          ? `from ${p.detail}`
          : p?.kind === 'person'
            ? `answered by ${p.detail}`
            : `set at run start${p?.detail ? ` (${p.detail})` : ''}`;
      return `${n.text} — ${from}${valid}`;
    }
    case 'negation':
      return `${n.text} — nothing establishes it`;
    case 'builtin':
      return `${n.text} — computed`;
    case 'comparison':
      return n.text;
  }
}

/** Derivation lines, indented by depth, for the approval card's "why this is allowed". */
export function renderProof(nodes: ProofNode[], o: RenderOpts): string[] {
  const lines: string[] = [];
  const max = o.maxLines ?? 40;
  let truncated = false;
  // A fact or rule used twice is shown once; later uses point back to it, keeping the card short.
  const shown = new Set<string>();
  const memo = new Map<number, string>();
  const visit = (n: ProofNode, depth: number) => {
    if (lines.length >= max) {
      truncated = true;
      return;
    }
    const indent = '  '.repeat(depth);
    if ((n.kind === 'rule' || n.kind === 'fact') && shown.has(n.text)) {
      lines.push(`${indent}${n.text} — as above`);
      return;
    }
    shown.add(n.text);
    lines.push(`${indent}${describe(n, o, memo)}`);
    for (const c of n.children) visit(c, depth + 1);
  };
  for (const n of nodes) visit(n, 0);
  if (truncated) lines.push('…');
  return lines;
}
