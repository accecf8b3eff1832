import { allowWithoutApprovalEdit, requireApprovalEdit } from '../../../domain/policy/autonomy-edit';
import type { Observation, Plan, PlannerInput, Trigger } from '../../types';
import { call, find, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/**
 * "Require approval for paging" / "let the assistant create tasks without approval" (issue 12): rules mode
 * proposes the policy edit as a `propose_policy_change` card with the diff, which only an admin may approve.
 * Deliberately narrow: a few phrasings, the write tools of the table below, approval on or off for a tool as a
 * whole (texts: team members only). Anything else gets a clear answer pointing at Admin › Policy. Only a
 * signed-in person in the app can ask: an inbound text or email never reaches chat intents (SPEC §6.4), and a
 * team member's text is refused here because a phone number alone is not proof of who asks.
 */

type Direction = 'require' | 'allow';

const ALLOW = [
  /^(?:please\s+)?(?:stop|don'?t|do not|no longer)\s+requir(?:e|ing)\s+(?:an?\s+|any\s+)?approvals?\s+(?:for|before|on|to)\s+(.+)$/i,
  /^(?:please\s+)?(?:let|allow)\s+(?:the\s+assistant\s+|switchboard\s+|you(?:rself)?\s+|it\s+)?(?:to\s+)?(.+?)\s+without\s+(?:an?\s+|any\s+)?(?:approval|asking)$/i,
];
const REQUIRE = [
  /^(?:please\s+)?(?:always\s+)?require\s+(?:an?\s+|my\s+|our\s+|admin\s+)?approvals?\s+(?:for|before|on|to)\s+(.+)$/i,
  /^(?:please\s+)?always\s+ask\s+(?:me\s+|us\s+|a\s+person\s+|someone\s+)?(?:for\s+approval\s+)?before\s+(.+)$/i,
  /^(?:please\s+)?(?:don'?t|do not|never|stop)\s+(.+?)\s+without\s+(?:an?\s+|any\s+)?approval$/i,
];

const TEAM = /\b(team|staff|colleagues|internal)\b/i;

interface PolicyTool {
  tool: string;
  /** How the answer names what the tool does. */
  label: string;
  match: RegExp;
  /** The statement that lets it run without approval, or why rules mode will not propose that. */
  allow(what: string): { statement: string } | { refuse: string };
}

const ASK_ADMIN = 'an admin can write a narrower rule in Admin › Policy';

/** The writes a chat request can name, tried in order (the first whose words match). */
const TOOLS: PolicyTool[] = [
  {
    tool: 'reply_to_sender',
    label: 'replies to team members who text the company line',
    match: /\b(repl(y|ies|ying)|answer(s|ing)?)\b.*\b(team|staff)\b/i,
    allow: () => ({ statement: 'autonomous reply_to_sender when true.' }),
  },
  {
    tool: 'escalate',
    label: 'pages to the on-call person',
    match: /\b(pag(e|es|ing)|escalat\w*|on-?call)\b/i,
    allow: () => ({ statement: 'autonomous escalate when true.' }),
  },
  {
    tool: 'send_email',
    label: 'emails',
    match: /\be-?mail/i,
    allow: () => ({
      refuse: `I do not propose sending emails without approval (they reach people outside the team); ${ASK_ADMIN}.`,
    }),
  },
  {
    tool: 'send_message',
    label: 'texts',
    match: /\b(text(s|ing)?|sms|messag(e|es|ing))\b/i,
    allow: (what) =>
      TEAM.test(what)
        ? { statement: 'autonomous send_message(To, Text) when internal_contact(To).' }
        : {
            refuse: `I propose texts without approval only to team members (“text team members without approval”); ${ASK_ADMIN}.`,
          },
  },
  {
    tool: 'create_calendar_event',
    label: 'calendar events',
    match: /\b(calendar|events?|appointments?)\b/i,
    allow: () => ({ statement: 'autonomous create_calendar_event when true.' }),
  },
  {
    tool: 'create_task',
    label: 'new tasks',
    match: /\btasks?\b/i,
    allow: () => ({ statement: 'autonomous create_task when true.' }),
  },
];

const AUTONOMY_FILE = 'policy/autonomy.rules';

export const policyChange: ChatIntent = {
  name: 'policy_change',
  required: [],
  detect(text) {
    const t = text.replace(/[.!?\s]+$/, '');
    for (const [direction, patterns] of [
      ['allow', ALLOW],
      ['require', REQUIRE],
    ] as const) {
      for (const p of patterns) {
        const m = t.match(p);
        if (m?.[1]) return { direction, what: m[1], request: t };
      }
    }
    return undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    const t = input.trigger;
    if (t.kind !== 'chat' || t.channel !== 'web')
      return respond('I take policy changes only from someone signed in to the app, not by text.');
    if (!input.hasTool('propose_policy_change') || !input.hasTool('read_file'))
      return respond('Policy changes need the memory workspace, which is not configured here.');
    const what = String(slots.what);
    const target = TOOLS.find((x) => x.match.test(what));
    if (!target)
      return respond(
        `I can propose approval changes for ${TOOLS.map((x) => x.label).join(', ')}. ` +
          `“${what}” is none of those; an admin can change anything else in Admin › Policy.`,
      );
    const proposed = find(input.observations, 'propose_policy_change');
    if (proposed) return respond(afterDecision(proposed, target, slots.direction as Direction));
    const ask = { target, what, request: String(slots.request), trigger: t };
    return slots.direction === 'allow' ? planAllow(input, ask) : planRequire(input, ask);
  },
};

interface Ask {
  target: PolicyTool;
  what: string;
  request: string;
  trigger: Extract<Trigger, { kind: 'chat' }>;
}

function afterDecision(o: Observation, target: PolicyTool, direction: Direction): string {
  const done =
    direction === 'allow'
      ? `Done: ${target.label} no longer wait for approval (the admin's approval is in the policy history).`
      : `Done: ${target.label} wait for a person's approval again.`;
  return outcome(o, done, 'change the policy');
}

const noteOf = (ask: Ask, now: Date) =>
  `Proposed in chat by ${ask.trigger.user.name ?? ask.trigger.user.email} on ${now.toISOString().slice(0, 10)}: “${ask.request.slice(0, 160)}”`;

function propose(path: string, text: string, ask: Ask): Plan {
  const reason = `${ask.trigger.user.name ?? ask.trigger.user.email} asked in chat: “${ask.request}”`.slice(
    0,
    500,
  );
  return call('propose_policy_change', { path, text, reason }, 'Propose the policy change for an admin');
}

/** The file's text as read_file returned it, or why it cannot be edited here. */
function fileText(o: Observation): { text: string } | { problem: string } {
  const r = o.result as { content?: string; note?: string } | undefined;
  if (o.status !== 'ok' || typeof r?.content !== 'string')
    return { problem: `I could not read ${String(o.args.path)}: ${o.error ?? 'no content'}.` };
  if (r.note)
    return { problem: `${String(o.args.path)} is too long for me to edit here; use Admin › Policy.` };
  return { text: r.content };
}

function planAllow(input: PlannerInput, ask: Ask): Plan {
  const allowed = ask.target.allow(ask.what);
  if ('refuse' in allowed) return respond(allowed.refuse);
  const read = find(input.observations, 'read_file');
  if (!read) return call('read_file', { path: AUTONOMY_FILE, limit: 2000 }, 'Read the approval rules');
  const file = fileText(read);
  if ('problem' in file) return respond(file.problem);
  const edit = safely(() =>
    allowWithoutApprovalEdit(file.text, AUTONOMY_FILE, allowed.statement, noteOf(ask, input.now)),
  );
  if ('problem' in edit) return respond(edit.problem);
  if (edit.already) return respond(`The policy already lets ${ask.target.label} go without approval.`);
  return propose(AUTONOMY_FILE, edit.text, ask);
}

/**
 * Approval again: every file whose `autonomous` lines name the tool is read and parsed (the search only says
 * which files to read); the statements are commented out in a proposal. More than one file: the admin's screen.
 */
function planRequire(input: PlannerInput, ask: Ask): Plan {
  const search = find(input.observations, 'search_files');
  if (!search)
    return call(
      'search_files',
      { query: 'autonomous', dir: 'policy', max_results: 200 },
      'Find the rules that let writes skip approval',
    );
  const files = filesWithAutonomy(search);
  const reads = input.observations.filter((o) => o.name === 'read_file');
  const next = files.find((f) => !reads.some((o) => o.args.path === f));
  if (next) return call('read_file', { path: next, limit: 2000 }, 'Read a policy file with approval rules');
  const edits: Array<{ path: string; text: string }> = [];
  for (const o of reads) {
    const file = fileText(o);
    if ('problem' in file) return respond(file.problem);
    const path = String(o.args.path);
    const edit = safely(() => requireApprovalEdit(file.text, path, ask.target.tool, noteOf(ask, input.now)));
    if ('problem' in edit) return respond(edit.problem);
    if (edit.removed.length) edits.push({ path, text: edit.text });
  }
  if (!edits.length)
    return respond(
      `${capital(ask.target.label)} already wait for a person's approval: no rule in the policy lets them skip it.`,
    );
  if (edits.length > 1)
    return respond(
      `Rules in ${edits.map((e) => e.path).join(' and ')} let ${ask.target.label} skip approval; I propose one file at a time, so ask an admin to change them in Admin › Policy.`,
    );
  const only = edits[0] as { path: string; text: string };
  return propose(only.path, only.text, ask);
}

/** The policy files with an `autonomous` line that is not a comment, from search_files' "path:line: text". */
function filesWithAutonomy(o: Observation): string[] {
  const matches = (o.result as { matches?: string[] } | undefined)?.matches ?? [];
  const files = new Set<string>();
  for (const m of matches) {
    const hit = m.match(/^(policy\/[^:]+\.rules):\d+: (.*)$/);
    if (hit?.[1] && !hit[2]?.trim().startsWith('%')) files.add(hit[1]);
  }
  return [...files].sort();
}

/** A policy file that does not parse cannot be edited by text surgery; the admin's editor shows why. */
function safely<T>(fn: () => T): T | { problem: string } {
  try {
    return fn();
  } catch (e) {
    return {
      problem: `The policy does not load as it stands (${String(e).slice(0, 200)}); fix it in Admin › Policy.`,
    };
  }
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
