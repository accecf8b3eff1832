import type { ProofNode } from './solver';

export interface RenderOpts {
  now: Date;
  timezone: string;
  /** Approval cards have room for a screenful, not a full trace. */
  maxLines?: number;
}

/** One formatter per zone: luxon built a zone and a formatter for every fact a summary showed (issue 14). */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Date ("2026-11-24") and time ("09:05") of an instant in a zone, as luxon's yyyy-LL-dd and HH:mm wrote them. */
function localParts(at: Date, timeZone: string): { date: string; time: string } {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  const p: Record<string, string> = {};
  for (const x of f.formatToParts(at)) p[x.type] = x.value;
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
}

function until(expiresAt: number, o: RenderOpts, memo: Map<number, string>): string {
  const known = memo.get(expiresAt);
  if (known !== undefined) return known;
  const at = localParts(new Date(expiresAt * 1000), o.timezone);
  const today = localParts(o.now, o.timezone).date;
  const text = at.date === today ? at.time : `${at.date} ${at.time}`;
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
