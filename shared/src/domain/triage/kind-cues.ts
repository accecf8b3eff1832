import type { EmergencyKind } from './labels';

/**
 * What an emergency is about, before the kind model is asked. Calling 911 (or "the emergency line") says
 * that help was called, not what for: people dial it for a fire, a fall and a prowler alike. The kind model
 * learnt it as a medical word, because most messages that name 911 in the corpus are about a person hurt,
 * so "someone is trying door handles on our floor, I called 911" came out medical and would page with
 * first-aid advice. A property manager reads the hazard, not the call: these words are taken out before the
 * kind model reads the text.
 */
const CALL_FOR_HELP =
  /\b((i|we|i'?ve|we'?ve|i have|we have|just|already)\s+)?(called|calling|call|dialed|dialled|phoned|rang)\s+(911|9-1-1|the emergency (line|number)|emergency services)\b|\b911\b|\bemergency\b/gi;

export function withoutCallForHelp(text: string): string {
  return text.replace(CALL_FOR_HELP, ' ');
}

/**
 * Someone getting in, or trying to, told in the words of a tenant at the door: handles tried, a lock being
 * worked, a person who should not be there. Each needs an act or a person, not a noun alone ("the lock is
 * sticky" is maintenance and never reaches this: it is only asked for messages already judged emergencies).
 */
const INTRUSION =
  /\b(trying|tried|tries|jiggl\w*|rattl\w*|checking|testing|pulling on|turning)\s+(the\s+|my\s+|our\s+|every\s+|all\s+the\s+|people'?s\s+|each\s+)?(door\s?knobs?|door\s?handles?|handles?|knobs?|doors?|locks?|windows?)\b|\bprowl\w*|\bintruders?\b|\b(break(ing)?|broke|breaks|got|getting|climb\w*|sneak\w*|snuck) (in|into)\b|\bbroken into\b|\bburgl\w*|\brobb(ed|ery|er|ers)\b|\b(stole|stolen)\b|\b(pried|kicked|forced|busted|smashed) (open|in)\b|\btrespass\w*|\b(gun|knife|weapon)s?\b|\b(someone|somebody|a (man|guy|woman|person)|people|strangers?) (is |was |are |were |keeps? )?(outside (my|our|the) (door|window)|banging on|pounding on|lurking|hiding in|peeking|peering|looking in|in (my|our) (apartment|unit|house|yard|garage))/i;

/**
 * Harm to a body, which makes a medical page the right one even when a crime is told too ("he broke in and
 * she is bleeding"): then the kind model decides, as before.
 */
const BODY_HARM =
  /\b(hurt|injur\w*|bleed\w*|blood|fell|fallen|collaps\w*|unconscious|unresponsive|seizure|faint\w*|passed out|not breathing|can'?t breathe|overdos\w*|heart attack|stroke|allergic|stabbed|shot|beaten|beat (him|her|me|them) up|attacked|assault\w*|ambulance|paramedics?|emts?)\b/i;

/** Any other hazard named in the message: then the kind model decides between them, as before. */
const OTHER_HAZARD =
  /\b(water|leak\w*|flood\w*|pour\w*|fire|flames?|smoke|smoky|burn\w*|gas|fumes|carbon monoxide|spark\w*|shock\w*|wires?|outlets?|heat|heating|furnace|boiler|freez\w*)\b/i;

/**
 * The kind an emergency's own words settle, ahead of the kind model: an intrusion told without anyone hurt
 * and without another hazard is a security emergency, whatever help was called.
 */
export function kindByCues(text: string): EmergencyKind | undefined {
  if (INTRUSION.test(text) && !BODY_HARM.test(text) && !OTHER_HAZARD.test(text)) return 'security';
  return undefined;
}
