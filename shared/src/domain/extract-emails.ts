/**
 * Email addresses in a text, lower-cased and de-duplicated. Apart from ./extract.ts (which re-exports it):
 * the worker checks every inbound email's sender with it (email-auth.ts), and extract.ts brings chrono-node
 * and libphonenumber, which only the rules planner and lead intake need (issue 16: not at init).
 */
const EMAIL = /[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}/gi;

export function extractEmails(text: string): string[] {
  return [...new Set(text.match(EMAIL) ?? [])].map((e) => e.toLowerCase());
}
