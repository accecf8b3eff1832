import type { Message } from '../contracts/conversations';

export const PREVIEW_CHARS = 160;

/**
 * The inbox preview in people's words (issue 19): who wrote and the first line of what they wrote — a
 * tenant's text, an email's opening, a teammate's chat. The assistant's own messages (its internal summaries,
 * "I drafted a reply…") and tool activity never become the preview; they return undefined and leave it as it
 * was.
 */
export function peoplePreview(m: Pick<Message, 'role' | 'text' | 'author'>): string | undefined {
  if (m.role !== 'inbound' && m.role !== 'user') return undefined;
  const line =
    m.text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const who = m.author.name.trim();
  return (who ? `${who}: ${line}` : line).slice(0, PREVIEW_CHARS);
}
