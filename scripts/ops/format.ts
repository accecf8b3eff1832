import type { PendingApproval } from './approvals';
import type { DeadLetter, ReplayResult } from './dlq';
import type { EventTrace } from './trace';

/** Plain text for a terminal; `--json` gives the same data whole. */

export function formatDeadLetters(res: { approximateCount: number; letters: DeadLetter[] }): string {
  if (res.letters.length === 0) return 'The dead-letter queue is empty.';
  const lines = [`${res.letters.length} dead letter(s) shown (about ${res.approximateCount} waiting):`];
  for (const l of res.letters) {
    lines.push(
      `- ${l.messageId}  ${l.type ?? '(not an event)'}  event ${l.eventId ?? '?'}  sent ${l.sentAt ?? '?'}`,
      `    reason: ${l.reason ?? '(none given: the queue moved it after too many receives)'}`,
    );
    if (l.ledger) lines.push(`    ledger: ${l.ledger.status} at ${l.ledger.at}: ${l.ledger.reason}`);
  }
  lines.push('Replay with: npm run ops -- dlq:replay');
  return lines.join('\n');
}

export function formatReplay(res: ReplayResult): string {
  if (res.mode === 'message-move')
    return `Started SQS message move of about ${res.moved} message(s) (task ${res.taskHandle}).`;
  const why = res.fallbackReason ? ` (message move unavailable: ${res.fallbackReason})` : '';
  return `Moved ${res.moved} message(s) to the events queue by receive → send → delete${why}.`;
}

export function formatApprovals(list: PendingApproval[]): string {
  if (list.length === 0) return 'Nothing is waiting for a decision.';
  const lines = [`${list.length} card(s) waiting for a decision, oldest first:`];
  for (const a of list) {
    lines.push(
      `- ${a.ageMinutes} min  ${a.tool}  “${a.summary}”`,
      `    conversation ${a.conversationId} (${a.conversationTitle})  card ${a.actionId}  run ${a.runId}`,
    );
  }
  return lines.join('\n');
}

export function formatTrace(t: EventTrace): string {
  const e = t.event;
  const lines = [
    `Event ${e.eventId} (${e.type}, key ${e.key}, correlation ${e.correlationId ?? '-'})`,
    `  now: ${e.status} — ${e.reason}`,
    ...t.history.map((h) => `  ${h.at}  ${h.status}: ${h.reason}`),
  ];
  if (t.related.length) {
    lines.push('Related events (same correlation id):');
    for (const r of t.related) lines.push(`  ${r.at}  ${r.eventId} ${r.type}: ${r.status} — ${r.reason}`);
  }
  if (!t.conversation) {
    lines.push('No conversation: the event did not start or join one.');
    return lines.join('\n');
  }
  lines.push(`Conversation ${t.conversation.id} “${t.conversation.title}”`);
  for (const m of t.messages)
    lines.push(`  ${m.createdAt}  ${m.role} (${m.author.name}): ${oneLine(m.text)}`);
  for (const r of t.runs) {
    const tools = r.steps.toolCalls.map((c) => `${c.name}${c.status ? `:${c.status}` : ''}`).join(', ');
    lines.push(
      `Run ${r.id} (${r.mode}) ${r.status}${r.outcome ? ` — ${r.outcome}` : ''}`,
      `  ${r.steps.total} steps ${JSON.stringify(r.steps.byKind)}${tools ? `; tools: ${tools}` : ''}`,
      ...r.steps.errors.map((x) => `  error: ${x}`),
    );
  }
  for (const c of t.cards) {
    const who = c.decidedBy ? ` by ${c.decidedBy}` : '';
    lines.push(`Card ${c.id} ${c.tool} “${c.summary}”: ${c.status}${who}`);
  }
  for (const a of t.audit) lines.push(`Audit ${a.at}  ${a.type} by ${a.actor}`);
  for (const s of t.sends)
    lines.push(`Sent ${s.tool} (${s.actionId}): ${s.status}${s.error ? ` — ${s.error}` : ''}`);
  if (t.sends.length === 0) lines.push('Nothing was sent.');
  return lines.join('\n');
}

function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
