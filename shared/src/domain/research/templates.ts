import type { PlanItem } from '../../contracts/research';

/**
 * Rules-mode research (no model key): deterministic templates the team asks for every week, planned into
 * the same graph the model would plan. Each leaf is one read tool; `{{phone}}`/`{{email}}` are filled from
 * what the contact lookup found.
 */
export type TemplateName = 'contact_history' | 'property_open' | 'vendor_record';

export interface TemplateMatch {
  template: TemplateName;
  subject: string;
}

const clean = (s: string) =>
  s
    .trim()
    .replace(/[?.!]+$/, '')
    .replace(/^(the|our)\s+/i, '')
    .trim();

const PATTERNS: Array<{ template: TemplateName; re: RegExp }> = [
  {
    template: 'property_open',
    re: /\b(?:what(?:['’]s|\s+is)|anything|everything)\s+(?:still\s+)?open\s+(?:at|for|on)\s+(.+)$/i,
  },
  {
    template: 'vendor_record',
    re: /\b(?:track\s+record|how\s+(?:fast|quickly|well)\s+did)\s+(?:of|for)?\s*(.+?)(?:\s+(?:come|respond|do|perform).*)?$/i,
  },
  { template: 'vendor_record', re: /\bvendor\s+(?:history|record)\s+(?:of|for)\s+(.+)$/i },
  {
    template: 'contact_history',
    re: /\b(?:summari[sz]e(?:\s+the)?(?:\s+history\s+(?:of|with|for))?|history\s+(?:of|with|for))\s+(.+?)(?:['’]s)?(?:\s+history)?(?:\s+before\b.*)?$/i,
  },
  { template: 'contact_history', re: /^research\s+(.+?)(?:['’]s)?(?:\s+history)?$/i },
];

/** The template a goal asks for, and its subject (a person, an address, a vendor), if any. */
export function matchTemplate(goal: string): TemplateMatch | undefined {
  const text = goal.trim();
  for (const p of PATTERNS) {
    const m = text.match(p.re);
    const subject = m?.[1] ? clean(m[1]) : '';
    if (subject.length >= 2) return { template: p.template, subject };
  }
  return undefined;
}

const day = 86_400_000;
const iso = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
const read = (key: string, goal: string, tool: string, args: PlanItem['args'], dependsOn: string[] = []) =>
  ({ key, goal, kind: 'read', tool, args, dependsOn }) satisfies PlanItem;
const group = (key: string, goal: string, subtasks: PlanItem[], dependsOn: string[] = []) =>
  ({ key, goal, kind: 'plan', subtasks, dependsOn }) satisfies PlanItem;

/**
 * The plan of a template. `hasTool` drops the steps whose integration is not configured here (a group left
 * empty is dropped too), so a deployment without ClickUp still gets the rest of the picture.
 */
export function templatePlan(
  match: TemplateMatch,
  opts: { now: Date; hasTool: (name: string) => boolean },
): PlanItem[] {
  const s = match.subject;
  const past = (days: number) => iso(new Date(opts.now.getTime() - days * day));
  const ahead = (days: number) => iso(new Date(opts.now.getTime() + days * day));
  let items: PlanItem[];
  switch (match.template) {
    case 'contact_history':
      items = [
        read('who', `Identify ${s} in the contacts`, 'search_contacts', { query: s, limit: 1 }),
        group(
          'comms',
          `${s}'s texts, calls and emails`,
          [
            read('sms', `Texts with ${s}`, 'list_messages', { participant: '{{phone}}', limit: 30 }),
            read('calls', `Calls with ${s}`, 'list_calls', { participant: '{{phone}}', limit: 20 }),
            read('email', `Emails with ${s}`, 'search_emails', { query: '{{email}}', limit: 10 }),
          ],
          ['who'],
        ),
        group('commitments', `Tasks and appointments about ${s}`, [
          read('tasks', `Tasks mentioning ${s}`, 'search_tasks', { query: s, includeClosed: true }),
          read('calendar', `Calendar events with ${s}`, 'list_calendar_events', {
            query: s,
            timeMin: past(90),
            timeMax: ahead(30),
          }),
        ]),
        read('threads', `Conversations mentioning ${s}`, 'search_conversations', { query: s }),
      ];
      break;
    case 'property_open':
      items = [
        read('tasks', `Open tasks at ${s}`, 'search_tasks', { query: s }),
        read('threads', `Conversations about ${s}`, 'search_conversations', { query: s }),
        read('email', `Emails about ${s}`, 'search_emails', { query: `"${s}"`, limit: 10 }),
        read('calendar', `Upcoming visits at ${s}`, 'list_calendar_events', {
          query: s,
          timeMin: iso(opts.now),
          timeMax: ahead(30),
        }),
        read('notes', `Notes about ${s}`, 'search_files', { query: s, max_results: 20 }),
      ];
      break;
    case 'vendor_record':
      items = [
        read('who', `Identify ${s} in the contacts`, 'search_contacts', { query: s, limit: 1 }),
        group('work', `Jobs ${s} did`, [
          read('tasks', `Tasks for ${s}`, 'search_tasks', { query: s, includeClosed: true }),
          read('visits', `Visits by ${s}`, 'list_calendar_events', {
            query: s,
            timeMin: past(365),
            timeMax: ahead(30),
          }),
        ]),
        group(
          'comms',
          `What was said with ${s}`,
          [
            read('sms', `Texts with ${s}`, 'list_messages', { participant: '{{phone}}', limit: 30 }),
            read('email', `Emails with ${s}`, 'search_emails', { query: '{{email}}', limit: 10 }),
          ],
          ['who'],
        ),
      ];
      break;
  }
  return prune(items, opts.hasTool);
}

function prune(items: PlanItem[], hasTool: (name: string) => boolean): PlanItem[] {
  const kept = items.flatMap((i): PlanItem[] => {
    if (i.kind === 'plan') {
      const subtasks = prune(i.subtasks ?? [], hasTool);
      return subtasks.length ? [{ ...i, subtasks }] : [];
    }
    return i.tool && hasTool(i.tool) ? [i] : [];
  });
  const keys = new Set(kept.map((i) => i.key));
  return kept.map((i) => ({ ...i, dependsOn: i.dependsOn.filter((d) => keys.has(d)) }));
}
