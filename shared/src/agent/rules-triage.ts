import { slotsSentence } from '../domain/showing-slots';
import { CLASS_TITLES, type EmergencyKind, type TriageClass } from '../domain/triage/labels';
import type { TriageNote } from './types';

/**
 * What rules mode says and shows once triage has classified an inbound message (issue 17): the line a card
 * carries ("maintenance request · “faucet”, “dripping”"), the greeting, and a reply per class that says what
 * happens next and never leaves a blank to fill.
 */

/** "Hi Maria," with a real first name; "Hi," when there is none (never "Hi ,", never a number). */
export function greeting(name: string | undefined): string {
  const first =
    name
      ?.trim()
      .split(/\s+/)[0]
      ?.replace(/[^\p{L}'-]/gu, '') ?? '';
  return first ? `Hi ${first},` : 'Hi,';
}

/** The class and why, for a card's reason and the team note. */
export function classLine(t: TriageNote | undefined, who?: string): string {
  if (!t) return '';
  const title = t.triageClass === 'emergency' && t.kind ? `${t.kind} emergency` : CLASS_TITLES[t.triageClass];
  // "maintenance request · kitchen faucet · “dripping”": the thing first, then the cues it does not repeat.
  const thing = t.subject?.replace(/^the /, '');
  const cues = thing ? t.cues.filter((c) => !thing.toLowerCase().includes(c.toLowerCase())) : t.cues;
  const why = cues.length
    ? t.byKeywordFloor
      ? ` · keywords ${cues.map((c) => `“${c}”`).join(', ')}`
      : ` · ${cues.map((c) => `“${c}”`).join(', ')}`
    : '';
  return `${title}${thing ? ` · ${thing}` : ''}${why}${who ? ` · ${who}` : ''}`;
}

/** What to do first, by kind, while the on-call person is on the way. */
const SAFETY: Record<EmergencyKind, string> = {
  water: 'If you can do it safely, turn off the water at the shutoff valve and keep away from wet outlets.',
  fire: 'If there is fire or smoke, leave the building and call 911 first.',
  gas: 'Please leave the unit now, do not switch anything on or off, and call 911 or the gas company from outside.',
  security: 'If you are in danger, call 911 first and stay somewhere safe.',
  heat: 'If anyone is at risk from the cold, please tell us so we can prioritise.',
  electrical: 'Keep away from the outlet or wires and, if it is safe, switch off that breaker.',
  medical: 'If anyone is hurt, call 911 first.',
};

const NEXT: Partial<Record<TriageClass, string>> = {
  maintenance:
    "thanks for letting us know — we've received it and will arrange for someone to take a look. We'll confirm a time with you before anyone comes by.",
  lead: "thanks for your interest — we've received it. A member of our leasing team will reply shortly with availability and the next steps to apply.",
  showing: "thanks — we've received it. We'll check the calendar and confirm a time with you shortly.",
  rent: "thanks for your message about rent — we've received it and will check your account and get back to you.",
  lease:
    "thanks for your message about your lease — we've received it and will get back to you with the details.",
  vendor_confirmation: "thanks for the update — we've received it and noted it on our side.",
};

/** Classes whose reply offers showing times from the calendar's free/busy, when it answered. */
export const SLOT_CLASSES = new Set<TriageClass>(['showing', 'lead']);

/** The offer, or '' when there are no free times to offer (the reply then says a person will confirm). */
export function slotsOffer(slots: readonly { label: string }[]): string {
  return slots.length
    ? ` We have openings on ${slotsSentence(slots)} — reply with the one that suits you and we'll confirm it.`
    : '';
}

/** The acknowledgement for a known contact's text, by class; `facts` are lines from the team's notes. */
export function smsReply(
  t: TriageNote | undefined,
  name: string | undefined,
  urgent: boolean,
  facts: string[] = [],
  slots: readonly { label: string }[] = [],
): string {
  const hi = greeting(name);
  const noted = facts.length ? ` From our notes: ${facts.join(' ')}` : '';
  if (urgent) {
    const kind = t?.kind;
    const about = kind ? ` about the ${kind === 'security' ? 'security' : kind} emergency` : '';
    const safety = kind ? ` ${SAFETY[kind]}` : '';
    return `${hi} we got your message${about} and are treating it as urgent — our on-call person has been alerted and will contact you shortly.${safety}${noted}`;
  }
  return `${hi} ${classReply(t, slots)}${noted}`;
}

/** What happens next, by class, with the free showing times when the calendar gave some. */
function classReply(t: TriageNote | undefined, slots: readonly { label: string }[]): string {
  const offer = t && SLOT_CLASSES.has(t.triageClass) ? slotsOffer(slots) : '';
  const next = offer ? "thanks — we've received it." : t ? nextStep(t) : undefined;
  return `${next ?? "thanks for your message — we've received it and someone from the team will get back to you soon."}${offer}`;
}

/** The class's next step; a repair names what it is about ("thanks for letting us know about the sink"). */
function nextStep(t: TriageNote): string | undefined {
  const next = NEXT[t.triageClass];
  return t.triageClass === 'maintenance' && t.subject
    ? next?.replace('letting us know', `letting us know about ${t.subject}`)
    : next;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The rules-mode answer to an outside email, by class like a text's (issue 17: never "Thank you for your
 * email" whatever was asked): what happens next, the notes that answer it, free showing times. An
 * emergency says whether on-call was paged; when not (no pager, or the keyword floor alone), it says how to
 * reach someone now rather than promise a call.
 */
export function emailReply(
  t: TriageNote | undefined,
  name: string | undefined,
  {
    facts = [],
    slots = [],
    paged = false,
  }: { facts?: string[]; slots?: readonly { label: string }[]; paged?: boolean } = {},
): string {
  const noted = facts.length ? `\n\nFrom our notes: ${facts.join(' ')}` : '';
  const text =
    t?.triageClass === 'emergency'
      ? emergencyEmail(t.kind, paged)
      : capitalised(classReply(t, slots)).replace(/^Thanks\b/, 'Thank you');
  return `${greeting(name)}\n\n${text}${noted}\n\nBest regards,\nThe team`;
}

function emergencyEmail(kind: EmergencyKind | undefined, paged: boolean): string {
  const about = kind ? ` about the ${kind} emergency` : '';
  const safety = kind ? ` ${SAFETY[kind]}` : '';
  return paged
    ? `We got your email${about} and are treating it as urgent — our on-call person has been alerted and will contact you shortly.${safety}`
    : `Thank you for telling us${about}. If it is happening right now, please call or text our office line so the on-call person is reached at once — email may not be read straight away.${safety}`;
}

/** A newcomer's first reply: what they asked about, and what happens next (free viewing times if known). */
export function welcomeReply(
  name: string | undefined,
  t: TriageNote | undefined,
  slots: readonly { label: string }[] = [],
  /** What they asked about, when the text names it (lead-sms.ts `leadAbout`). */
  asked?: string,
): string {
  const about = asked ?? (t?.triageClass === 'showing' ? 'a viewing' : 'our rentals');
  const next = slots.length
    ? `We can show you the place on ${slotsSentence(slots)} — reply with the one that suits you.`
    : 'A member of our leasing team will text you shortly with availability and how to arrange a viewing.';
  return `${greeting(name)} thanks for reaching out about ${about}. ${next} ${name ? 'What' : 'May we have your name, and what'} is your preferred move-in date?`;
}

/**
 * A name the sender gave ("my name is Jenna", "this is Ana Ruiz"), or signed at the end ("… no pets. Ana",
 * "thanks, Ana Ruiz", "- Ana"), or undefined. Whatever it finds is shown on the card that creates the
 * contact, so a person sees it before it is used.
 */
export function nameFromText(text: string): string | undefined {
  const m = text.match(
    /\b(?:[Mm]y name is|[Mm]y name's|[Tt]his is|[Ii]'m|[Ii] am)\s+([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?)\b/,
  );
  const name = m?.[1];
  if (!name) return signedName(text);
  // "I'm Interested", "this is Regarding": capitalised words that are not names.
  return /^(Interested|Looking|Writing|Regarding|Texting|Calling|Inquiring|Asking|Moving|Not|So|Very)\b/.test(
    name,
  )
    ? undefined
    : name;
}

/** Capitalised words that end a text without being a name: closings, replies, days, months, pleas. */
const NOT_SIGNATURES =
  /^(Thanks|Thank|Thx|Ty|Cheers|Regards|Best|Sincerely|Respectfully|Love|Blessings|Sent|Hi|Hello|Hey|Yes|No|Nope|Yeah|Ok|Okay|Please|Pls|Asap|Urgent|Help|Sorry|Sure|Great|Perfect|Cool|Awesome|Anytime|Bye|Today|Tomorrow|Tonight|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|Interested|Available|Apartment|Unit|Studio|Rent|Lease)$/;
/** A second word that makes the two an address ("Oak St"), not a name. */
const STREET_WORDS = /^(St|Street|Ave|Avenue|Rd|Road|Blvd|Ln|Lane|Dr|Drive|Ct|Court|Way|Pl|Place|Apt)$/;

/** One or two capitalised words after the text's last sentence (or a closing word, or a dash). */
function signedName(text: string): string | undefined {
  const t = text.trim();
  const m = t.match(
    /(?:[.!?,\n]|\s[-–—~])\s*(?:(?:[Tt]hanks|[Tt]hank you|[Tt]hx|[Cc]heers|[Rr]egards|[Bb]est)[,!.]?\s+)?([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?)[.!]?$/,
  );
  const name = m?.[1];
  if (!name || m.index === undefined || m.index < 10) return undefined;
  const [first, second] = name.split(/\s+/);
  if (!first || NOT_SIGNATURES.test(first) || (second && STREET_WORDS.test(second))) return undefined;
  return name;
}

/** Classes where an unknown number is most likely a prospective tenant. */
export const NEWCOMER_CLASSES = new Set<TriageClass>(['lead', 'showing']);

/** Which lines of the team's notes answer a class (and, for emergencies, a kind). */
const TOPICS: Partial<Record<TriageClass | EmergencyKind, RegExp>> = {
  rent: /\b(rent|late fee|grace period|zelle|payment portal)\b/i,
  lease: /\b(lease|renewal|notice to vacate|move-?out)\b/i,
  lead: /\b(application|apply|requirements?|pet policy|deposit|income)\b/i,
  showing: /\b(showings?|viewings?|tours?|open house)\b/i,
  maintenance: /\b(maintenance|repairs?|work orders?)\b/i,
  other: /\b(office hours|office is open|trash|recycling|parking)\b/i,
  water: /\b(water shut-?off|shut-?off valve|main valve)\b/i,
  gas: /\b(gas (company|shut-?off|meter))\b/i,
  heat: /\b(furnace|boiler|thermostat|space heaters?)\b/i,
  electrical: /\b(breaker|electrical panel|fuse box)\b/i,
};

const MAX_FACTS = 2;

/**
 * Sections of MEMORY.md that instruct the assistant (how to use the workspace, the team's style, who the
 * team is) rather than state facts: a reply to a tenant never quotes them.
 */
const INSTRUCTION_SECTIONS = /^(how to use this workspace|preferences|the team)$/i;

/**
 * MEMORY.md as statements: one per bullet, with its wrapped continuation lines joined (so a reply never
 * quotes half a sentence), leaving out the prose under the title and the instruction sections.
 */
export function memoryStatements(memory: string): string[] {
  const out: string[] = [];
  let skip = false;
  let preamble = true;
  for (const line of memory.split('\n')) {
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      skip = INSTRUCTION_SECTIONS.test((heading[2] ?? '').trim());
      preamble = heading[1] === '#';
      continue;
    }
    if (skip || !line.trim()) continue;
    const bullet = line.match(/^\s*[-*]\s+(.*)$/);
    const last = out.length - 1;
    if (bullet) out.push(bullet[1] ?? '');
    else if (/^\s+\S/.test(line) && last >= 0) out[last] = `${out[last]} ${line.trim()}`;
    // The prose under the title says how the file works; facts under it are bullets.
    else if (!preamble) out.push(line.trim());
  }
  return out.map((l) => l.replace(/\s*\(noted [^)]*\)\s*$/, '').trim()).filter(Boolean);
}

/**
 * Statements of MEMORY.md that answer what the message is about (rent due day, office hours, where the
 * water shutoff is). None found → the reply promises a person's answer instead.
 */
export function factsFor(t: TriageNote | undefined, memory: string): string[] {
  if (!t) return [];
  const topic = (t.kind && TOPICS[t.kind]) || TOPICS[t.triageClass];
  if (!topic) return [];
  return memoryStatements(memory)
    .filter((l) => topic.test(l))
    .slice(0, MAX_FACTS)
    .map((l) => (/[.!?]$/.test(l) ? l : `${l}.`).slice(0, 200));
}

/** What the card says about the notes: what was used, or plainly that nothing was there. */
export function factsLine(t: TriageNote | undefined, facts: string[], read: boolean): string {
  if (!t || !read) return '';
  const topic = (t.kind && TOPICS[t.kind]) || TOPICS[t.triageClass];
  if (!topic) return '';
  return facts.length
    ? ' · answered from MEMORY.md'
    : ' · MEMORY.md has nothing on this, so the reply promises an answer';
}
