/** Lines kept from a transcript: enough for notes and a prompt, not a whole hour of talk. */
const MAX_LINES = 300;
const MAX_LINE_CHARS = 500;

/**
 * Quo's dialogue as `caller: …` / `team: …` lines: a line spoken by a Quo user (userId set) is the team's,
 * anything else the outside party's. The speaker's number is dropped (the entry already says who).
 */
export function callTranscriptLines(dialogue: Array<{ userId: string | null; text: string }>): string[] {
  return dialogue
    .slice(0, MAX_LINES)
    .map((d) => `${d.userId ? 'team' : 'caller'}: ${d.text.slice(0, MAX_LINE_CHARS)}`);
}
