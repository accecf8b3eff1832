/**
 * The card's "why" as sentences a property manager reads (cards #18): "Maria Lopez is a tenant — from the
 * contacts." instead of `known_contact("+14155550111") — by the rule at policy/messaging.rules:15`. The rule
 * trace stays on the card one tap away; this only reads it. Pure presentation, so it lives with the card (the PWA imports only contracts from shared/).
 *
 * Input lines are renderProof's (domain/policy/proof.ts): `  head(args) — provenance`, indented by depth.
 * Predicates the default policy defines get their own sentence; any other (a team's own rule) is said in
 * plain words from its name, so a new rule never shows as code.
 */

export interface WhyPerson {
  address: string;
  name?: string | undefined;
  role?: string | undefined;
}

interface Parsed {
  pred: string;
  args: string[];
  source: string;
  negated: boolean;
}

// Arguments hold no parentheses outside quotes, so "a(x) requires b(x)" is not read as one atom.
const LINE = /^\s*(not\s+)?([a-z_][a-z0-9_]*)(?:\(((?:"(?:[^"\\]|\\.)*"|[^()"])*)\))?\s*(?:—\s*(.*))?$/;

function splitArgs(inner: string | undefined): string[] {
  if (!inner) return [];
  const out: string[] = [];
  for (const m of inner.matchAll(/"((?:[^"\\]|\\.)*)"|([^,\s][^,]*)/g)) out.push((m[1] ?? m[2] ?? '').trim());
  return out;
}

function parse(line: string): Parsed | undefined {
  const m = line.match(LINE);
  if (!m?.[2]) return undefined;
  return { negated: Boolean(m[1]), pred: m[2], args: splitArgs(m[3]), source: (m[4] ?? '').trim() };
}

/** "from search_contacts(…), valid until 10:05" → "from the contacts"; "answered by Sam Chen" stays. */
function provenance(source: string): string {
  if (/^from search_contacts/.test(source)) return 'from the contacts';
  if (/^from (lead )?email/.test(source)) return 'from their email';
  const answered = source.match(/^answered by ([^,]+)/);
  if (answered) return `answered by ${answered[1]}`;
  return '';
}

const humanize = (s: string) => s.replace(/_/g, ' ');

type Namer = (value: string) => string;

function sentence(p: Parsed, name: Namer, people: Map<string, WhyPerson>): string | undefined {
  const who = p.args[0] !== undefined ? name(p.args[0]) : '';
  const role = p.args[0] !== undefined ? people.get(p.args[0])?.role : undefined;
  const from = provenance(p.source);
  const tail = from ? ` — ${from}` : '';
  if (p.negated && p.pred === 'quiet_hours') return 'It is not quiet hours (21:00–08:00).';
  if (p.negated) return undefined;
  switch (p.pred) {
    case 'contact':
      return `${who} is in the contacts${role ? ` as ${role}` : ''}${tail}.`;
    case 'known_contact':
    case 'team_time':
    case 'may_welcome_now':
      return undefined;
    case 'internal_contact':
      return `${who} is on the team.`;
    case 'external_contact':
      return `${who} is outside the team${role ? ` (${role})` : ''}.`;
    case 'sending_line':
      return p.args[1] === 'assistant'
        ? 'Texts to the team go from the assistant’s line.'
        : 'Texts to people outside the team go from the shared line.';
    case 'may_text_now':
      return `${who} may be texted now.`;
    case 'urgent':
      return `It is urgent enough to text during quiet hours${tail}.`;
    case 'credit_score':
      return `${who}’s credit score is ${p.args[1]}${tail}.`;
    case 'pet':
      return p.args[1] === 'none' ? `${who} has no pets${tail}.` : `${who} has a ${p.args[1]}${tail}.`;
    case 'qualified_lead':
      return `${who} meets the rental criteria.`;
    case 'disqualified':
      return `${who} does not meet the rental criteria (${humanize(p.args[1] ?? '')}).`;
    default: {
      const rest = p.args.slice(1).map(name).map(humanize).join(', ');
      const subject = who ? `${who}: ` : '';
      const text = `${subject}${humanize(p.pred)}${rest ? ` (${rest})` : ''}${tail}.`;
      return text.charAt(0).toUpperCase() + text.slice(1);
    }
  }
}

/** Derivation lines → sentences, once each, addresses named from the card's people where known. */
export function whySentences(lines: string[], people: WhyPerson[] = []): string[] {
  const byAddress = new Map(people.map((p) => [p.address, p]));
  const name: Namer = (v) => byAddress.get(v)?.name ?? v;
  const out: string[] = [];
  for (const line of lines) {
    if (/— as above$/.test(line)) continue;
    const p = parse(line);
    // A verdict's reason is already prose ("Texts to the team need no approval"): kept as it is; anything
    // else that looks like code stays in the trace only.
    if (!p && !/[a-z_]+\(|\b[a-z]+_[a-z_]+\b/.test(line) && line.includes(' ')) {
      if (!out.includes(line.trim())) out.push(line.trim());
      continue;
    }
    // A sentence for a goal proved by a rule ("send_message(…) — by the rule at …") would only repeat
    // the card's title; its reasons are the lines under it.
    if (!p || (/^by the rule at/.test(p.source) && !KNOWN_RULE_HEADS.has(p.pred))) continue;
    const s = sentence(p, name, byAddress);
    if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

/** Rules whose conclusion is itself worth a sentence (the rest are the tool call or plumbing). */
const KNOWN_RULE_HEADS = new Set([
  'internal_contact',
  'external_contact',
  'sending_line',
  'may_text_now',
  'qualified_lead',
  'disqualified',
]);
