import { DateTime } from 'luxon';
import type { Plan, PlannerInput } from '../../types';
import { find, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/**
 * A team member's question ("did the plumber confirm?", "what did the tenant in 4B say about the leak?"):
 * answered from what the assistant can read — the stored conversations (texts, emails, chats) and the memory
 * notes — citing where each line was found, or saying plainly that nothing was found. It is the last intent
 * tried, so "what's on the calendar" and "who is Maria" keep their own, more exact answers.
 *
 * By SMS the answer goes out through `reply_to_sender`, so the sensitive-content rule (issue 12) applies to
 * it as to any text: an answer carrying a marked value becomes a card instead of a text.
 */
const QUESTION =
  /\?\s*$|^(did|does|do|has|have|is|are|was|were|when|what|what'?s|who|who'?s|whose|where|which|why|how|any|anything|can you (check|find|tell))\b/i;

const FILLER = new Set(
  "a about again all already am an and any anybody anyone anything are as at be been but by can could check did do does ever find for from get got had has have he her him his how i if in into is it it's its just know last let me my no not now of on or our out say said says she so some someone tell that the their them then there they this to up us was we were what what's when where which who who's whose why will with yet you your".split(
    ' ',
  ),
);

/** The words of a question worth searching for: no question words, no filler, at most six. */
export function questionKeywords(text: string): string[] {
  const words = text
    .toLowerCase()
    .replace(/[’']s\b/g, '')
    .replace(/[^a-z0-9\s-]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length >= 3 && !FILLER.has(w));
  return [...new Set(words)].slice(0, 6);
}

interface ConvHit {
  title?: string;
  lastMessageAt?: string;
  matches?: Array<{ at?: string; author?: string; role?: string; snippet?: string }>;
}

const MAX_CITED = 3;

/** "Tue 24 Nov 09:00" in the time the search reported (the team's), short enough for a text. */
function when(at: string | undefined): string {
  const t = at ? DateTime.fromISO(at, { setZone: true }) : undefined;
  return t?.isValid ? t.toFormat('ccc d LLL HH:mm') : (at ?? '');
}

function fromConversations(result: unknown): string[] {
  const hits = (result as { hits?: ConvHit[] } | undefined)?.hits ?? [];
  return hits.slice(0, MAX_CITED).flatMap((h) => {
    const m = h.matches?.[0];
    if (!m?.snippet) return [];
    const who = m.author ?? (m.role === 'assistant' ? 'the team' : 'them');
    return [
      `• “${m.snippet.trim()}” — ${who}, ${when(m.at ?? h.lastMessageAt)} (conversation “${h.title ?? ''}”)`,
    ];
  });
}

function fromNotes(result: unknown): string[] {
  const matches = (result as { matches?: string[] } | undefined)?.matches ?? [];
  return matches.slice(0, MAX_CITED).map((m) => {
    const [path, line, ...text] = m.split(':');
    return `• “${text.join(':').trim()}” — notes, ${path} line ${line}`;
  });
}

export const teamQuestion: ChatIntent = {
  name: 'team_question',
  required: ['keywords'],
  detect(text) {
    if (!QUESTION.test(text.trim())) return undefined;
    const keywords = questionKeywords(text);
    return keywords.length ? { keywords, question: text.trim() } : undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    const keywords = slots.keywords as string[];
    const query = keywords.join(' ');
    const obs = input.observations;
    const convs = find(obs, 'search_conversations');
    const notes = find(obs, 'search_files');
    const calls = [];
    if (input.hasTool('search_conversations') && !convs)
      calls.push({
        name: 'search_conversations',
        args: { query, limit: MAX_CITED },
        reason: 'Search the conversations',
      });
    // The notes are searched for the most specific word: their search is for a phrase, not for words.
    const longest = [...keywords].sort((a, b) => b.length - a.length)[0] as string;
    if (input.hasTool('search_files') && !notes)
      calls.push({
        name: 'search_files',
        args: { query: longest, max_results: MAX_CITED },
        reason: 'Search the notes',
      });
    if (calls.length) return { kind: 'calls', calls };
    const lines = [...fromConversations(convs?.result), ...fromNotes(notes?.result)];
    const where = [convs && 'the conversations (texts, emails, chats)', notes && 'the notes'].filter(Boolean);
    if (!where.length)
      return respond('I cannot search the conversations or the notes here, so I cannot answer that.');
    if (!lines.length) return respond(`I searched ${where.join(' and ')} for “${query}” and found nothing.`);
    return respond(`Here is what I found for “${query}”:\n${lines.join('\n')}`);
  },
};
