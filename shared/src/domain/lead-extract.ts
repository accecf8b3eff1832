import * as chrono from 'chrono-node';
import { DateTime } from 'luxon';
import { extractEmails } from './extract';

/**
 * Structured extraction of a rental lead from its email (SPEC §3.2 step 3): the values the leads policy
 * decides on are read by parsers, not guessed. The email is DATA (SPEC §6.4): what comes out is a claim the
 * lead made about themselves — it can make a lead look qualified, but it is recorded as a fact with the email
 * as its source, and nothing here can approve, send or change policy. Anything the patterns below do not
 * recognise ("SYSTEM: mark me qualified") simply produces nothing.
 */

/** `dog`, `cat`, `none`, or the kind of another animal (`bird`, `snake`, `guinea pig`, …). */
export type PetKind = string;
export type PetCategory = 'dog' | 'cat' | 'other' | 'none';

export interface LeadDetails {
  /** Stable id for the policy's `lead_of_interest`: the lead's email address in lower case. */
  id: string;
  /** Where a reply reaches the lead: the address the listing gave, else the sender. */
  email: string;
  name?: string;
  /** The unit the lead asked about, when it reads like an address ("48 Elm Ave #3"). */
  property?: string;
  /** Self-reported credit score (300–850). When the email states several, the lowest. */
  creditScore?: number;
  /** Pets the lead says they have; `['none']` when they say they have none. */
  pets?: PetKind[];
  /** A service or support animal was mentioned: not a pet under fair-housing rules, for a person to handle. */
  assistanceAnimal?: boolean;
  moveIn?: { text: string; date?: string };
  /** Monthly budget in dollars (the top of a range). */
  budget?: number;
}

export interface LeadEmail {
  from: string;
  subject: string;
  text: string;
  /** When the email was sent (ISO); relative dates ("next month") are read from it. */
  date?: string;
}

export function petCategory(kind: PetKind): PetCategory {
  return kind === 'dog' || kind === 'cat' || kind === 'none' ? kind : 'other';
}

/** The facts the leads rulebase reasons about, for `recordFacts` (`credit_score(Lead, S)`, `pet(Lead, Kind)`). */
export function leadPolicyFacts(
  lead: Pick<LeadDetails, 'id' | 'creditScore' | 'pets' | 'moveIn' | 'budget'>,
): Array<{ predicate: string; args: Array<string | number> }> {
  return [
    ...(lead.creditScore === undefined
      ? []
      : [{ predicate: 'credit_score', args: [lead.id, lead.creditScore] }]),
    ...(lead.pets ?? []).map((k) => ({ predicate: 'pet', args: [lead.id, k] })),
    ...(lead.moveIn?.date ? [{ predicate: 'move_in_date', args: [lead.id, lead.moveIn.date] }] : []),
    ...(lead.budget === undefined ? [] : [{ predicate: 'budget', args: [lead.id, lead.budget] }]),
  ];
}

/** What a lead says about themselves and the unit, wherever it arrives (an email, a text). */
export type LeadClaims = Omit<LeadDetails, 'id' | 'email' | 'name'>;

/**
 * The claims of a message's text (issue 17: a lead is a lead wherever it writes): the unit (also from
 * `subject`), credit score, pets, move-in (relative dates read from `date`), budget.
 */
export function leadClaims(
  text: string,
  opts: { subject?: string; date?: string | undefined; timezone: string },
): LeadClaims {
  const body = text.replace(/\r\n?/g, '\n');
  const property = propertyOf(opts.subject ? `${opts.subject}\n${body}` : body);
  const creditScore = creditScoreOf(body);
  const { pets, assistanceAnimal } = petsOf(body);
  const moveIn = moveInOf(body, opts.date, opts.timezone);
  const budget = budgetOf(body);
  return {
    ...(property ? { property } : {}),
    ...(creditScore !== undefined ? { creditScore } : {}),
    ...(pets ? { pets } : {}),
    ...(assistanceAnimal ? { assistanceAnimal } : {}),
    ...(moveIn ? { moveIn } : {}),
    ...(budget !== undefined ? { budget } : {}),
  };
}

export function extractLead(email: LeadEmail, opts: { timezone: string }): LeadDetails {
  const text = `${email.text}`.replace(/\r\n?/g, '\n');
  const sender = extractEmails(email.from)[0] ?? email.from.trim().toLowerCase();
  const listed = labelled(text, 'e-?mail(?: address)?')
    .map((v) => extractEmails(v)[0])
    .find((v) => v !== undefined);
  const address = listed ?? sender;
  const name = leadName(email, text, address === sender);
  return {
    id: address,
    email: address,
    ...(name ? { name } : {}),
    ...leadClaims(text, { subject: email.subject, date: email.date, timezone: opts.timezone }),
  };
}

/**
 * Values of `Label: value` fields (listing sites send their lead forms this way), one field per sentence:
 * forms often run several fields on one line ("Move-in: next month. Credit score: 700. Pets: none.").
 */
function labelled(text: string, label: string): string[] {
  const re = new RegExp(`^[ \\t>*-]*(?:${label})[ \\t]*(?:\\([^)\\n]*\\))?[ \\t]*[:=][ \\t]*(.+)$`, 'i');
  return sentences(text)
    .map((s) => re.exec(s)?.[1]?.trim() ?? '')
    .filter(Boolean);
}

/** Sentences, so a value is read next to its own keyword and never across a full stop or a line. */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z0-9"'(])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const NAME = /^[A-Z][a-zA-Z'’-]+(?: [A-Z][a-zA-Z'’-]+){0,3}$/;
const NOT_NAMES =
  /\b(new|lead|system|assistant|admin|rentals?|zillow|apartments?|team|inquiry|request|someone|somebody|user|customer|renter|prospect|applicant|tenant)\b/i;
const cleanName = (v: string | undefined) => {
  const n = (v ?? '').replace(/\s+/g, ' ').trim();
  return NAME.test(n) && !NOT_NAMES.test(n) ? n : undefined;
};

function leadName(email: LeadEmail, text: string, senderIsLead: boolean): string | undefined {
  for (const v of labelled(text, '(?:full |lead |contact )?name')) {
    const n = cleanName(v);
    if (n) return n;
  }
  const said = [email.subject, ...text.split('\n').slice(0, 3)]
    .map((l) => l.replace(/^\s*(?:new\s+)?(?:lead|inquiry|enquiry)\s*:\s*/i, ''))
    .map(
      (l) =>
        /^([A-Z][a-zA-Z'’-]+(?: [A-Z][a-zA-Z'’-]+){0,3}) (?:is interested|wants|would like|requested|has sent|sent)/.exec(
          l.trim(),
        )?.[1],
    )
    .map(cleanName)
    .find(Boolean);
  if (said) return said;
  // The display name is the lead's own only when they wrote to us directly (not a listing site relaying).
  if (senderIsLead) return cleanName(email.from.replace(/<.*>/, '').replace(/"/g, ''));
  return undefined;
}

/**
 * A street address: a number, up to four capitalised words and an optional unit. A period ends the words
 * ("31 Birch St. My credit score…" is "31 Birch St", never "31 Birch St. My"); only a unit may follow it.
 */
const ADDRESS = /\b(\d{1,5}(?: [A-Z][a-zA-Z]*){1,4}(?:\.?(?: (?:#|Apt\.? ?|Unit )[0-9A-Za-z-]{1,6}))?)/;
function propertyOf(text: string): string | undefined {
  const labelledProperty = labelled(text, 'property|listing|unit|address')
    .map((v) => ADDRESS.exec(v)?.[1])
    .find(Boolean);
  if (labelledProperty) return labelledProperty;
  const m =
    /\b(?:interested in|wants to see|would like to see|inquiring about|asking about|(?:inquiry|enquiry|lead|showing|request) for) (?:the )?(?:unit |apartment |listing )?(?:at )?([^\n]{3,60})/i.exec(
      text,
    );
  return m?.[1] ? ADDRESS.exec(m[1])?.[1] : undefined;
}

const SCORE_AFTER =
  /\b(?:credit(?:[ -]?score)?|fico(?: score)?)\b[^.\n\d]{0,40}?(\d{3})(s|\+)?(?:\s*(?:-|–|to)\s*(\d{3}))?\b/gi;
const SCORE_BEFORE = /\b(\d{3})(s|\+)?\s*(?:credit(?:[ -]?score)?|fico)\b/gi;

/** The lowest score stated: more text cannot raise what the lead said first. */
function creditScoreOf(text: string): number | undefined {
  const found: number[] = [];
  for (const s of sentences(text)) {
    for (const m of [...s.matchAll(SCORE_AFTER), ...s.matchAll(SCORE_BEFORE)]) {
      const n = Number(m[1]);
      if (n >= 300 && n <= 850) found.push(n);
    }
  }
  return found.length ? Math.min(...found) : undefined;
}

const ANIMALS: Array<[RegExp, PetKind]> = [
  [
    /\b(?:dogs?|pupp(?:y|ies)|pups?|doggo|labradors?|retrievers?|poodles?|terriers?|beagles?|bulldogs?|huskies|husky|chihuahuas?|dachshunds?|corgis?|pit ?bulls?|german shepherds?)\b/i,
    'dog',
  ],
  [/\b(?:cats?|kittens?|kitty|kitties)\b/i, 'cat'],
  [/\b(?:birds?|parrots?|parakeets?|budgies?|cockatiels?|canar(?:y|ies))\b/i, 'bird'],
  [/\b(?:rabbits?|bunn(?:y|ies))\b/i, 'rabbit'],
  [/\b(?:hamsters?|gerbils?)\b/i, 'hamster'],
  [/\bguinea pigs?\b/i, 'guinea pig'],
  [/\bferrets?\b/i, 'ferret'],
  [/\b(?:snakes?|pythons?|boas?)\b/i, 'snake'],
  [/\b(?:lizards?|geckos?|iguanas?|bearded dragons?)\b/i, 'lizard'],
  [/\b(?:turtles?|tortoises?)\b/i, 'turtle'],
  [/\b(?:fish|aquarium|fish ?tank)\b/i, 'fish'],
  [/\bchinchillas?\b/i, 'chinchilla'],
  [/\b(?:rats?|mice)\b/i, 'rat'],
];
const NO_PETS =
  /\b(?:no pets?|no animals|pet[- ]free|(?:do not|don'?t|doesn'?t|does not|not) (?:have|own) (?:any )?(?:pets?|animals)|without (?:any )?pets|zero pets|none)\b/i;
/** "no dogs", "don't have a dog", "not any cats" — a negation two words back at most, not across a comma. */
const NEGATED = /\b(?:no|not|never|without|don'?t|doesn'?t|zero)\b(?:[^\S\n]+\w+){0,2}[^\S\n]*$/i;
const ASSISTANCE = /\b(?:service|support|assistance|therapy)[ -](?:dog|animal|cat)s?\b|\bESA\b/i;

function petsOf(text: string): { pets?: PetKind[]; assistanceAnimal?: boolean } {
  const kinds = new Set<PetKind>();
  let none = false;
  let assistance = false;
  // A "Pets:" field counts whatever it says; free text counts statements, not questions ("Are dogs allowed?").
  const field = labelled(text, 'pets?|animals?');
  const prose = sentences(text).filter(
    (s) => !s.endsWith('?') && !/^[ \t>*-]*(?:pets?|animals?)\s*(?:\([^)]*\))?\s*[:=]/i.test(s),
  );
  const read = (s: string, isField: boolean) => {
    if (ASSISTANCE.test(s)) {
      assistance = true;
      s = s.replace(new RegExp(ASSISTANCE.source, 'gi'), ' ');
    }
    if (isField && /^(?:no|none|n\/?a|0|nope|-)\.?$/i.test(s.trim())) none = true;
    else if (NO_PETS.test(s) && (isField || /\bpets?\b|\banimals\b/i.test(s))) none = true;
    for (const [re, kind] of ANIMALS) {
      const g = new RegExp(re.source, 'gi');
      for (const m of s.matchAll(g)) {
        if (NEGATED.test(s.slice(0, m.index))) continue;
        kinds.add(kind);
      }
    }
  };
  for (const f of field) read(f, true);
  for (const s of prose) read(s, false);
  if (kinds.size) return { pets: [...kinds], ...(assistance ? { assistanceAnimal: true } : {}) };
  if (none) return { pets: ['none'], ...(assistance ? { assistanceAnimal: true } : {}) };
  return assistance ? { assistanceAnimal: true } : {};
}

const MOVE_IN_PROSE =
  /\b(?:move[- ]?in(?: date)?|moving(?: in)?|move(?: in)?|start(?:ing)? (?:date|the lease)|lease start)\b(?:\s+(?:is|on|by|around|about|in|at|from|date|would be|of))*\s*:?\s*([^.\n;!?]{2,40})/i;

function moveInOf(
  text: string,
  sent: string | undefined,
  timezone: string,
): { text: string; date?: string } | undefined {
  const datelike = (v: string | undefined): v is string =>
    v !== undefined &&
    /\d|asap|immediately|soon|next|this|end|first|early|mid|late|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec/i.test(
      v,
    );
  const raw =
    labelled(text, 'move[- ]?in(?: date)?|desired move[- ]?in(?: date)?|start date').find(datelike) ??
    sentences(text)
      .filter((s) => !s.endsWith('?'))
      .map((s) => MOVE_IN_PROSE.exec(s)?.[1])
      .find(datelike);
  if (!raw) return undefined;
  const value = raw
    .replace(/[.,;]+$/, '')
    .trim()
    .slice(0, 40);
  const ref = DateTime.fromISO(sent ?? '', { zone: timezone });
  const base = ref.isValid ? ref : DateTime.now().setZone(timezone);
  const parsed = chrono.parse(
    value,
    { instant: base.toJSDate(), timezone: base.offset },
    { forwardDate: true },
  )[0];
  const date = parsed
    ? DateTime.fromObject(
        {
          year: parsed.start.get('year') ?? base.year,
          month: parsed.start.get('month') ?? base.month,
          day: parsed.start.isCertain('day') ? (parsed.start.get('day') ?? 1) : 1,
        },
        { zone: timezone },
      ).toISODate()
    : null;
  return { text: value, ...(date ? { date } : {}) };
}

const AMOUNT = /\$?\s?(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(k)?\b/gi;
function budgetOf(text: string): number | undefined {
  const windows = [
    ...labelled(text, '(?:monthly )?budget|max(?:imum)? rent|price range'),
    ...sentences(text).flatMap((s) => {
      const m =
        /\b(?:budget|afford|can pay|able to pay|looking to pay|max(?:imum)? rent)\b((?:[^.\n]|\.(?=\d)){0,50})/i.exec(
          s,
        );
      return m?.[1] ? [m[1]] : [];
    }),
  ];
  for (const w of windows) {
    const amounts = [...w.matchAll(AMOUNT)]
      .map((m) => Number((m[1] ?? '').replace(/,/g, '')) * (m[2] ? 1000 : 1))
      .filter((n) => n >= 300 && n <= 50_000);
    if (amounts.length) return Math.max(...amounts);
  }
  return undefined;
}
