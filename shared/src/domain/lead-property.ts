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
