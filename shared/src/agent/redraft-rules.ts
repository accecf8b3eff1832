/**
 * Rules mode's "Redraft…" (cards #18): the recognisable parts of a person's instruction change the draft's
 * text — a day, a time, a name, "shorter", "more formal", a sign-off — and whatever is left is reported as not
 * applied, so the card can say so plainly and open the edit box. Pure and deterministic: a replayed run
 * applies the same instruction to the same draft and gets the same words.
 */

export interface AppliedInstruction {
  args: Record<string, unknown>;
  applied: string[];
  notApplied: string[];
}

const DAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'tomorrow',
  'today',
];
const DAY_RE = new RegExp(`\\b(${DAYS.join('|')})\\b`, 'i');
const TIME_RE = /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\b(noon|midday)\b/i;
const SHORTER = /\b(shorter|short|brief(er)?|concise|trim( it)?)\b/i;
const FORMAL = /\b(more formal|formal(ly)?|professional)\b/i;
const CASUAL = /\b(less formal|casual|friendlier|more friendly|warmer)\b/i;
const NAME_RE =
  /\b(?:call (?:him|her|them)|address (?:him|her|them) as|(?:his|her|their) name is|it'?s|greet (?:him|her|them) as)\s+((?:Mr\.?|Ms\.?|Mrs\.?|Dr\.?)\s*)?([A-Z][a-zA-Z'-]+)/;
const SIGN_RE = /\bsign(?:ed)?(?: it)?(?: off)?(?: with| as)?\s+["“]?([^"”\n.]{2,40})["”]?/i;
/** Words that carry no instruction of their own once the recognised parts are taken out. */
const FILLER = new Set(
  'say said make it its please the a an and to at on be more less use instead of for with as mention propose offer write keep tone reply draft this that them him her us our we you your so bit little lot much very than just also then but or of in by is are'.split(
    ' ',
  ),
);

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

function timeText(m: RegExpMatchArray): string {
  if (m[4]) return '12:00 PM';
  const ap = (m[3] ?? '').replace(/\./g, '').toUpperCase();
  return `${Number(m[1])}:${m[2] ?? '00'} ${ap}`;
}

/** The text field a draft carries: SMS `text`, email `body`. */
export function draftField(args: Record<string, unknown>): 'text' | 'body' | undefined {
  if (typeof args.text === 'string') return 'text';
  if (typeof args.body === 'string') return 'body';
  return undefined;
}

export function applyInstruction(args: Record<string, unknown>, instruction: string): AppliedInstruction {
  const field = draftField(args);
  if (!field) return { args, applied: [], notApplied: [instruction] };
  let text = String(args[field]);
  const applied: string[] = [];

  const day = instruction.match(DAY_RE);
  const time = instruction.match(TIME_RE);
  if (day || time) {
    text = withWhen(text, day ? cap(day[1] as string) : undefined, time ? timeText(time) : undefined);
    if (day) applied.push(`day: ${cap(day[1] as string)}`);
    if (time) applied.push(`time: ${timeText(time)}`);
  }
  const name = instruction.match(NAME_RE);
  if (name?.[2]) {
    const who = `${name[1] ? `${name[1].trim().replace(/\.?$/, '.')} ` : ''}${name[2]}`;
    text = text.replace(/^(Hi|Hello|Dear|Hey)\s+[^,\n]+,/m, `$1 ${who},`);
    applied.push(`name: ${who}`);
  }
  const sign = instruction.match(SIGN_RE);
  if (sign?.[1]) {
    text = withSignOff(text, sign[1].trim());
    applied.push(`sign-off: ${sign[1].trim()}`);
  }
  if (SHORTER.test(instruction)) {
    text = shorter(text);
    applied.push('shorter');
  }
  if (FORMAL.test(instruction) && !CASUAL.test(instruction)) {
    text = formal(text);
    applied.push('more formal');
  } else if (CASUAL.test(instruction)) {
    text = casual(text);
    applied.push('less formal');
  }
  // Each clause the patterns did not recognise, in the person's own words ("mention the parking spot").
  const recognised = [DAY_RE, TIME_RE, NAME_RE, SIGN_RE, SHORTER, FORMAL, CASUAL];
  const notApplied = instruction
    .split(/\s*(?:[,;]|\band\b|\balso\b|\.\s)\s*/i)
    .map((c) => c.trim())
    .filter((c) => c && !recognised.some((re) => re.test(c)))
    .filter((c) => c.split(/[^\w']+/).some((w) => w && !FILLER.has(w.toLowerCase())));
  return { args: { ...args, [field]: text }, applied, notApplied };
}

/** A day/time the person named: replaces one already in the draft, or asks about it instead of an open question. */
function withWhen(text: string, day: string | undefined, time: string | undefined): string {
  const hasDay = DAY_RE.test(text);
  const hasTime = TIME_RE.test(text);
  const when = [day, time].filter(Boolean).join(' at ');
  if (hasDay || hasTime) {
    // The draft already names a moment: the person's day and time take its place, nothing else moves.
    if (hasDay && hasTime) {
      let out = day ? text.replace(DAY_RE, day) : text;
      if (time) out = out.replace(TIME_RE, time);
      return out;
    }
    return hasDay
      ? text.replace(DAY_RE, (d) => [day ?? d, time].filter(Boolean).join(' at '))
      : text.replace(TIME_RE, when);
  }
  // The invitation's open question ("Which days and times would work…?", or the calendar's free times and
  // "Which of these times…?") becomes the proposal itself.
  const question = /[^.!?\n]*\b(which|what)( of these)? (days?|times?)[^?]*\?/i;
  if (question.test(text))
    return text.replace(OFFERED_TIMES, '').replace(question, `Would ${when} work for you for a showing?`);
  const sign = signOffIndex(text);
  const sentence = `Would ${when} work for you?`;
  return sign >= 0
    ? `${text.slice(0, sign).trimEnd()}\n\n${sentence}\n\n${text.slice(sign)}`
    : `${text.trimEnd()} ${sentence}`;
}

/** The free times an invitation offered (lead-triage.ts): a person's own day and time replace them. */
const OFFERED_TIMES = /We have openings on [^.\n]*\.\s*/;

const SIGN_OFF =
  /\n\n(Best regards|Kind regards|Regards|Best|Thanks|Thank you|Sincerely|Cheers|Warm regards),?\n[^\n]*\s*$/;

function signOffIndex(text: string): number {
  const m = text.match(SIGN_OFF);
  return m?.index !== undefined ? m.index + 2 : -1;
}

/** Replaces the sign-off block (or adds one): "sign it Sam" → "…\n\nSam". */
export function withSignOff(text: string, sign: string): string {
  const i = signOffIndex(text);
  const closing = /^(best|kind|warm|regards|thanks|thank|sincerely|cheers)/i.test(sign)
    ? sign
    : `Best regards,\n${sign}`;
  return i >= 0 ? `${text.slice(0, i)}${closing}` : `${text.trimEnd()}\n\n${closing}`;
}

/** Keeps the greeting, the first sentence of each paragraph (the ask survives) and the sign-off. */
function shorter(text: string): string {
  const i = signOffIndex(text);
  const body = i >= 0 ? text.slice(0, i) : text;
  const sign = i >= 0 ? text.slice(i) : '';
  const paras = body
    .split(/\n\n+/)
    .map((p) => p.trim())
    .filter(Boolean);
  const kept = paras.map((p) => {
    if (/^(Hi|Hello|Dear|Hey)\b[^,\n]*,$/.test(p)) return p;
    const sentences = p.match(/[^.!?]+[.!?]+(\s|$)/g) ?? [p];
    const pleasantry = /^(thank you|thanks|we appreciate|based on)/i;
    const useful = sentences.filter((s) => !pleasantry.test(s.trim()));
    const pick = [...(useful.length ? useful : sentences)];
    const question = pick.find((s) => s.trim().endsWith('?'));
    return (
      (question && pick[0] !== question ? `${pick[0]?.trim()} ${question.trim()}` : pick[0]?.trim()) ?? p
    );
  });
  const out = kept.join('\n\n');
  return sign ? `${out}\n\n${sign}` : out;
}

const CONTRACTIONS: Array<[RegExp, string]> = [
  [/\bcan't\b/gi, 'cannot'],
  [/\bwon't\b/gi, 'will not'],
  [/\bdon't\b/gi, 'do not'],
  [/\bdoesn't\b/gi, 'does not'],
  [/\bisn't\b/gi, 'is not'],
  [/\bwe'll\b/gi, 'we will'],
  [/\bI'll\b/g, 'I will'],
  [/\bI'm\b/g, 'I am'],
  [/\bwe're\b/gi, 'we are'],
  [/\bit's\b/gi, 'it is'],
  [/\byou're\b/gi, 'you are'],
  [/\blet's\b/gi, 'let us'],
];

function formal(text: string): string {
  let out = text.replace(/^(Hi|Hey|Hello)\s+([^,\n]+),/m, 'Dear $2,');
  for (const [re, to] of CONTRACTIONS)
    out = out.replace(re, (m) => (m[0] === m[0]?.toUpperCase() ? cap(to) : to));
  out = out.replace(/\bThanks\b/g, 'Thank you').replace(/\bthanks\b/g, 'thank you');
  out = out.replace(/\n\n(Best|Cheers|Thanks),?\n/, '\n\nKind regards,\n');
  return out;
}

function casual(text: string): string {
  return text
    .replace(/^Dear\s+([^,\n]+),/m, 'Hi $1,')
    .replace(/\n\n(Kind regards|Sincerely|Best regards),?\n/, '\n\nThanks,\n');
}

/**
 * Whether a deny reason asks for a different draft ("shorter", "say Friday 9am") rather than no reply at all
 * ("Maria already called us"): only a reason the rules can apply redrafts by default.
 */
export function reasonRedrafts(args: Record<string, unknown>, reason: string): boolean {
  return applyInstruction(args, reason).applied.length > 0;
}
