import { classLine, smsReply } from '../rules-triage';
import type { CallTrigger, Plan, PlannerInput } from '../types';
import { call, find, firstName, outcome } from './helpers';

/** At most this many tasks from one call's next steps: the rest are in the notes. */
const MAX_TASKS = 3;

/**
 * A finished call, in rules mode: the call goes into the team's notes (memory writes need no card, SPEC
 * §3.4), each of Quo's next steps becomes a task card (when ClickUp is connected), and an outside caller
 * gets a follow-up text card in the team's voice. Then one line says what was done.
 */
export function triageCall(input: PlannerInput, t: CallTrigger): Plan {
  const obs = input.observations;
  if (input.hasTool('write_file') && !find(obs, 'write_file'))
    return call(
      'write_file',
      { path: notePath(t, input.now), content: noteText(t) },
      'Keep the call in the notes',
    );
  const tasks = obs.filter((o) => o.name === 'create_task');
  const steps = t.nextSteps.slice(0, MAX_TASKS);
  if (input.hasTool('create_task') && tasks.length < steps.length) {
    const step = steps[tasks.length] as string;
    return call(
      'create_task',
      {
        name: step.slice(0, 200),
        description: `From the call with ${who(t)}: ${t.summary.join(' ')}`.slice(0, 2000),
      },
      `Next step from the call with ${who(t)}`,
    );
  }
  const said = t.summary.length + t.transcript.length > 0;
  if (!t.internal && said && input.hasTool('send_message') && !find(obs, 'send_message')) {
    return call(
      'send_message',
      { to: t.from, text: followUpText(t) },
      `Follow up the call by text${t.triage ? ` · ${classLine(t.triage)}` : ''}`,
    );
  }
  return { kind: 'respond', text: report(t, obs) };
}

function who(t: CallTrigger) {
  return t.contactName ?? t.from;
}

function followUpText(t: CallTrigger): string {
  if (t.triage && t.triage.triageClass !== 'other') return smsReply(t.triage, t.contactName, false);
  const hi = t.contactName ? `Hi ${firstName(t.contactName)}` : 'Hi';
  return `${hi}, thanks for your call. We have your notes and will follow up shortly.`;
}

function notePath(t: CallTrigger, now: Date) {
  const slug = (t.contactName ?? t.from)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `calls/${now.toISOString().slice(0, 10)}-${slug || 'caller'}-${t.callId.slice(-8)}.md`;
}

function noteText(t: CallTrigger): string {
  const mins = t.durationSeconds ? ` (${Math.max(1, Math.round(t.durationSeconds / 60))} min)` : '';
  return [
    `# Call with ${who(t)}${mins}`,
    '',
    t.summary.length ? `## Summary\n${t.summary.map((l) => `- ${l}`).join('\n')}\n` : '',
    t.nextSteps.length ? `## Next steps\n${t.nextSteps.map((l) => `- ${l}`).join('\n')}\n` : '',
    t.transcript.length ? `## Transcript (excerpt)\n${t.transcript.slice(0, 40).join('\n')}\n` : '',
  ]
    .filter((x) => x !== '')
    .join('\n');
}

function report(t: CallTrigger, obs: PlannerInput['observations']): string {
  const parts = [`Call with ${who(t)}${t.summary.length ? `: ${t.summary.join(' ')}` : '.'}`];
  const note = find(obs, 'write_file');
  if (note) parts.push(outcome(note, 'Notes saved.', 'save the notes'));
  const tasks = obs.filter((o) => o.name === 'create_task');
  if (tasks.length) parts.push(`${tasks.length} task(s) proposed from the next steps.`);
  const text = find(obs, 'send_message');
  if (text) parts.push(outcome(text, 'The follow-up text was sent.', 'send the follow-up text'));
  return parts.join(' ');
}
