import type { Model, ModelMessage, ModelUsage } from '../ports/model';

const approxTokens = (m: ModelMessage[]) => Math.ceil(JSON.stringify(m).length / 4);
const TOOL_RESULT_MAX = 2_000;

/**
 * Keeps the conversation inside the model's window (SPEC §3.5). Oversized tool results in older turns are
 * cut to a summary line; past the budget the older half is compacted into one summary by the helper
 * model. Both fail safe: on any error the original messages are sent unchanged.
 */
export async function compactHistory(
  model: Model,
  messages: ModelMessage[],
  budgetTokens: number,
): Promise<{ messages: ModelMessage[]; usage?: ModelUsage; compacted: boolean }> {
  const trimmed = messages.map((m, idx) =>
    idx >= messages.length - 2
      ? m
      : {
          ...m,
          content: m.content.map((c) =>
            c.type === 'tool_result' && c.content.length > TOOL_RESULT_MAX
              ? {
                  ...c,
                  content: `${c.content.slice(0, TOOL_RESULT_MAX)}… [older tool result cut from ${c.content.length} chars]`,
                }
              : c,
          ),
        },
  );
  if (approxTokens(trimmed) <= budgetTokens * 0.85) return { messages: trimmed, compacted: false };
  try {
    let cut = Math.floor(trimmed.length / 2);
    // Never split a tool_use from its tool_result: start the kept half on a plain user turn.
    while (
      cut < trimmed.length &&
      (trimmed[cut]?.role !== 'user' || trimmed[cut]?.content.some((c) => c.type === 'tool_result'))
    )
      cut++;
    const older = trimmed.slice(0, cut);
    const newer = trimmed.slice(cut);
    if (!older.length || !newer.length) return { messages: trimmed, compacted: false };
    const res = await model.complete({
      tier: 'helper',
      system: {
        stable:
          'Summarise this earlier part of a conversation for the assistant that will continue it. Keep names, numbers, dates, decisions and open items.',
        dynamic: '',
      },
      tools: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: JSON.stringify(older).slice(0, 200_000) }] },
      ],
      maxTokens: 800,
    });
    const summary = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (!summary.trim()) return { messages: trimmed, compacted: false };
    const head: ModelMessage = {
      role: 'user',
      content: [{ type: 'text', text: `[Summary of the earlier conversation]\n${summary}` }],
    };
    const first = newer[0];
    const merged = first
      ? [{ role: 'user' as const, content: [...head.content, ...first.content] }, ...newer.slice(1)]
      : [head];
    return { messages: merged, usage: res.usage, compacted: true };
  } catch {
    return { messages: trimmed, compacted: false };
  }
}
