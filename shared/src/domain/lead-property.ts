/**
 * The property a lead writes about (follow #20), kept on `conversation.lead.property`: the nudge names it
 * ("a showing of the apartment at 48 Elm Ave"), the digest lists it, and it assigns the conversation to whoever
 * handles it. A street address after a word that points at it — "the 2 bedroom at 48 Elm Ave", "interested in
 * 12 Oak St #4" — so "I have 2 Dogs" or "Thursday at 5" are not taken for one. A period ends the words.
 */
const ADDRESS =
  /\b(?:at|on|of|for|about|in|see|visit)\s+(?:the\s+)?(\d{1,5}(?: [A-Z][a-zA-Z]*){1,4}(?:\.?(?: (?:#|Apt\.? ?|Unit )[0-9A-Za-z-]{1,6}))?)/;

/** Skips words like "Apartment" or "Bedroom" that follow a number but are not a street. */
const NOT_A_STREET =
  /^\d+ (?:Bed(?:room)?s?|Bath(?:room)?s?|BR|Apartments?|Units?|People|Pets?|Dogs?|Cats?|Months?|Years?|Weeks?|Days?|PM|AM)\b/;

export function leadPropertyOf(text: string): string | undefined {
  const found = ADDRESS.exec(text)?.[1];
  return found && !NOT_A_STREET.test(found) ? found : undefined;
}

/**
 * The unit as the lead described it when they gave no number ("the 2 bedroom on Elm", "the studio at
 * Harbor View"), so a reply can name what they asked about in their own words rather than "our rentals".
 * Only for the reply's wording: a description names no one address, so it never assigns the conversation.
 */
const DESCRIBED_UNIT =
  /\bthe\s+((?:\d|one|two|three|four)[- ]?(?:bed(?:room)?s?|br|bd)|studio|loft|duplex|townhouse|townhome|house)(?:\s+(?:apartment|apt|unit|place|one))?\s+(on|at)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)/i;

export function describedUnitOf(text: string): string | undefined {
  const m = DESCRIBED_UNIT.exec(text);
  const [, unit, on, words] = m ?? [];
  // The pattern is case-blind for "the Studio"; a street is only its capitalised words ("Elm", not "Elm still").
  const all = (words ?? '').split(/\s+/);
  const lower = all.findIndex((x) => !/^[A-Z]/.test(x));
  const street = (lower < 0 ? all : all.slice(0, lower)).join(' ');
  if (!unit || !on || !street) return undefined;
  // "the studio on Monday": a day is when, not where.
  if (/^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Today|Tomorrow)\b/.test(street))
    return undefined;
  return `the ${unit.toLowerCase()} ${on.toLowerCase()} ${street}`;
}
