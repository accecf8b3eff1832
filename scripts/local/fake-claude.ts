import { lastToolResults, type MessagesRequest, type TurnReply, turn } from '../emulators/anthropic';

/**
 * What the fake Messages API answers in `npm start -- --fake-claude`: a tiny, deterministic "model" that
 * plays the triage a real Claude would (look the sender up, draft an acknowledgement, summarise), so the
 * whole Claude-mode path — the real SDK, tool_use blocks, prompt caching, pause and resume — can be seen
 * locally with no key. It is demo data, not a planner: rules mode is the real offline planner.
 */
export function fakeClaudeTurn(req: MessagesRequest): TurnReply {
  const results = lastToolResults(req);
  const first = req.messages[0];
  const opening =
    typeof first?.content === 'string'
      ? first.content
      : (first?.content ?? []).map((b) => ('text' in b ? String(b.text) : '')).join('\n');
  const from = opening.match(/Inbound text from (\+\d{6,15})/)?.[1];
  const last = results[results.length - 1];
  if (!last) {
    // With WEB_ALLOWED_DOMAINS set the request carries the web_search server tool: show it working locally.
    const query = opening.match(/(?:search the web|look up online) (?:for )?(.+)/i)?.[1];
    if (query && req.tools?.some((t) => t.name === 'web_search' && t.type))
      return {
        content: [
          turn.webSearch(query.trim()),
          { type: 'text', text: `Here is what I found on “${query.trim()}”.` },
        ],
      };
    if (from)
      return turn.toolUse('search_contacts', { query: from, limit: 1 }, { text: 'Let me see who this is.' });
    return turn.text(
      'I am the local fake model: I only know how to triage inbound texts. Rules mode handles the rest offline.',
    );
  }
  if (last.name === 'search_contacts' && from) {
    const name = (JSON.parse(last.content) as { result?: { contacts?: Array<{ name: string }> } }).result
      ?.contacts?.[0]?.name;
    const first = name?.split(' ')[0] ?? 'there';
    return turn.toolUse('send_message', {
      to: from,
      text: `Hi ${first}, thanks for your message — we'll get back to you shortly.`,
    });
  }
  if (last.name === 'send_message') {
    return turn.text(
      last.is_error
        ? `The acknowledgement was not sent: ${last.content.slice(0, 200)}`
        : 'The acknowledgement was sent.',
    );
  }
  return turn.text('Done.');
}
