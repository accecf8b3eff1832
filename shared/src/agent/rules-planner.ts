import { extractDayRange, extractEmails, extractPhones, extractTime } from '../domain/extract';
import { triageLead } from './lead-triage';
import {
  classLine,
  factsFor,
  factsLine,
  greeting,
  NEWCOMER_CLASSES,
  nameFromText,
  smsReply,
  welcomeReply,
} from './rules-triage';
import { askFor, mergeAnswer, splitRecipient } from './slot-filling';
import type { Observation, Plan, PlannerInput, Trigger } from './types';

/**
 * The deterministic planner (SPEC §3.1 rules mode, §3.2 steps 2–3). A pure function of the trigger, the
 * observations so far and the pending intent: each call returns the next step, so the same loop drives it
 * as drives Claude. It handles inbound triage and the known chat intents with parsers for the critical
 * values; anything else gets a clear "here is what I can do".
 */
export function rulesPlan(input: PlannerInput): Plan {
  switch (input.trigger.kind) {
    case 'inbound_sms':
      return triageSms(input, input.trigger);
    case 'inbound_email':
      return triageEmail(input, input.trigger);
    case 'chat':
      return chat(input, input.trigger);
  }
}

const find = (obs: Observation[], name: string) => [...obs].reverse().find((o) => o.name === name);
const firstContact = (o?: Observation) =>
  (
    o?.result as
      | { contacts?: Array<{ name: string; phones: string[]; emails: string[]; internal: boolean }> }
      | undefined
  )?.contacts?.[0];
const firstName = (name: string) => name.split(/\s+/)[0] ?? name;
/** A sender no contact matches exactly may still resemble one: a question for the person, never a name to use. */
const lookalikeHint = (o?: Observation) => {
  const similar = (o?.result as { not_the_sender?: string[] } | undefined)?.not_the_sender;
  return similar?.length ? ` (not in the contacts; might be ${similar[0]}?)` : '';
};

function outcome(o: Observation, done: string, what: string): string {
  switch (o.status) {
    case 'executed':
    case 'ok':
      return done;
    case 'denied':
      return `Okay, I did not ${what}${o.error ? ` (reason: ${o.error})` : ''}.`;
    case 'refused':
      return `I could not ${what}: ${o.error ?? 'the policy does not allow it'}.`;
    default:
      return `I tried to ${what} but it failed: ${o.error ?? 'unknown error'}.`;
  }
}

/** A text that only closes a thread ("thanks!", "ok, see you then") needs no reply and no card. */
const CLOSING_WORDS =
  '(?:ok(?:ay)?|k|thanks?|thank you|thx|ty|got it|sounds good|great|perfect|cool|will do|see you(?: then| soon| tomorrow)?|you too|no problem|np|so much|very much|a lot|again)';
const CLOSING = new RegExp(`^${CLOSING_WORDS}(?: ${CLOSING_WORDS})*$`);
const isClosing = (text: string) =>
  CLOSING.test(
    text
      .toLowerCase()
      .replace(/[^a-z\s]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );

function triageSms(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_sms' }>): Plan {
  const obs = input.observations;
  if (!t.urgent && (t.texts.every(isClosing) || t.triage?.triageClass === 'thanks'))
    return { kind: 'no_action', reason: `closing text from ${t.from}` };
  const lookup = find(obs, 'search_contacts');
  if (!lookup)
    return {
      kind: 'calls',
      calls: [{ name: 'search_contacts', args: { query: t.from, limit: 1 }, reason: 'Identify the sender' }],
    };
  const contact = firstContact(lookup);
  const who = contact?.name ?? t.from;
  const text = t.texts.join(' / ');
  if (t.urgent && input.hasTool('escalate') && !find(obs, 'escalate')) {
    return {
      kind: 'calls',
      calls: [
        {
          name: 'escalate',
          args: {
            reason: `Urgent text from ${who}${t.triage?.kind ? ` (${t.triage.kind} emergency)` : ''}`,
            from: t.from,
            text: text.slice(0, 500),
          },
          reason: `The message looks urgent: page the on-call person${t.triage ? ` · ${classLine(t.triage)}` : ''}`,
        },
      ],
    };
  }
  const send = find(obs, 'send_message');
  const esc = find(obs, 'escalate');
  const escNote = esc ? ` ${outcome(esc, 'The on-call person was paged.', 'page the on-call person')}` : '';
  if (!send) {
    if (!contact) return unknownSender(input, t, text, escNote);
    // What the team knows answers the tenant (rent due day, the water shutoff): read the notes first.
    const read = find(obs, 'read_file');
    if (t.triage && input.hasTool('read_file') && !read)
      return {
        kind: 'calls',
        calls: [{ name: 'read_file', args: { path: 'MEMORY.md' }, reason: 'Look up what the team knows' }],
      };
    const facts = factsFor(t.triage, read?.status === 'ok' ? memoryText(read.result) : '');
    const ack = smsReply(t.triage, contact.name, t.urgent, facts);
    const why = `${classLine(t.triage)}${factsLine(t.triage, facts, read !== undefined)}`;
    return {
      kind: 'calls',
      calls: [
        {
          name: 'send_message',
          args: { to: t.from, text: ack },
          reason: `Acknowledge ${who}'s text${why ? ` · ${why}` : ''}`,
        },
      ],
    };
  }
  return {
    kind: 'respond',
    text: `${who} texted: “${text.slice(0, 300)}”. ${outcome(send, 'The acknowledgement was sent.', 'send the acknowledgement')}${escNote}`,
  };
}

/**
 * An unknown number: a lead or a viewing request gets ONE card that adds the sender as a prospect and sends
 * the reply (welcome_contact); anything else alerts the team with what triage made of it — never silence.
 */
function unknownSender(
  input: PlannerInput,
  t: Extract<Trigger, { kind: 'inbound_sms' }>,
  text: string,
  escNote: string,
): Plan {
  const welcome = find(input.observations, 'welcome_contact');
  const why = classLine(t.triage);
  if (t.triage && NEWCOMER_CLASSES.has(t.triage.triageClass) && input.hasTool('welcome_contact')) {
    if (!welcome) {
      const name = t.texts.map(nameFromText).find(Boolean);
      return {
        kind: 'calls',
        calls: [
          {
            name: 'welcome_contact',
            args: {
              phone: t.from,
              ...(name ? { name } : {}),
              role: 'prospect',
              text: welcomeReply(name, t.triage),
            },
            reason: `New ${why} from an unknown number: add them as a prospect and reply`,
          },
        ],
      };
    }
    return {
      kind: 'respond',
      text: `New ${why} from ${t.from}: “${text.slice(0, 300)}”. ${outcome(welcome, 'They were added as a prospect and the reply was sent.', 'add them and reply')}${escNote}`,
    };
  }
  return {
    kind: 'respond',
    text: `Text from an unknown number ${t.from}${why ? ` (${why})` : ''}: “${text.slice(0, 300)}”. It is not in the contacts, so I drafted no reply — add the contact or answer from the shared line.${escNote}`,
  };
}

const AUTOMATED = /(no-?reply|notifications?|mailer-daemon|newsletter|donotreply)@/i;

function triageEmail(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_email' }>): Plan {
  const e = t.email;
  // Listing sites often send leads from no-reply addresses with the lead's own address inside.
  if (e.source === 'leads' || t.triage?.triageClass === 'lead') return triageLead(input, t);
  if (AUTOMATED.test(e.from)) return { kind: 'no_action', reason: `automated email from ${e.from}` };
  // Newsletters and promotions end here: logged as NO_ACTION_NEEDED, no conversation, no card.
  if (t.triage?.triageClass === 'bulk') return { kind: 'no_action', reason: `bulk email from ${e.from}` };
  const obs = input.observations;
  const address = extractEmails(e.from)[0] ?? e.from;
  const lookup = find(obs, 'search_contacts');
  if (!lookup)
    return {
      kind: 'calls',
      calls: [{ name: 'search_contacts', args: { query: address, limit: 1 }, reason: 'Identify the sender' }],
    };
  const name = firstContact(lookup)?.name ?? e.from.replace(/<.*>/, '').trim().replace(/^"|"$/g, '');
  const mightBe = lookalikeHint(lookup);
  if (!input.hasTool('send_email')) {
    return {
      kind: 'respond',
      text: `Email from ${name}: “${e.subject}”. Email replies are not configured, so I drafted none.`,
    };
  }
  const send = find(obs, 'send_email');
  if (!send) {
    const body = `${greeting(name.includes('@') ? undefined : name)}\n\nThank you for your email — we have received it and will get back to you shortly.\n\nBest regards,\nThe team`;
    const why = classLine(t.triage);
    return {
      kind: 'calls',
      calls: [
        {
          name: 'send_email',
          args: {
            to: address,
            subject: e.subject.toLowerCase().startsWith('re:') ? e.subject : `Re: ${e.subject}`,
            body,
            threadId: e.threadId,
            ...(e.messageIdHeader ? { inReplyTo: e.messageIdHeader } : {}),
          },
          reason: `Acknowledge ${name}'s email${mightBe}${why ? ` · ${why}` : ''}`,
        },
      ],
    };
  }
  return {
    kind: 'respond',
    text: `Email from ${name}: “${e.subject}”. ${outcome(send, 'The reply was sent in its thread.', 'send the reply')}`,
  };
}

const CANCEL = /^\s*(cancel|never\s?mind|start over|forget it|stop)\b/i;

type Intent = { intent: string; slots: Record<string, unknown> };

function detect(text: string, input: PlannerInput): Intent | undefined {
  const t = text.trim();
  // A bare request starts slot filling: "send an email", "send a text".
  if (/^(?:please\s+)?(?:send|write|draft|compose)\s+(?:an?\s+|new\s+)*e-?mail\.?$/i.test(t))
    return { intent: 'send_email', slots: {} };
  if (/^(?:please\s+)?(?:send|write)\s+(?:an?\s+)?(?:text|sms)(?:\s+message)?\.?$/i.test(t))
    return { intent: 'send_text', slots: {} };
  let m = t.match(/^(?:please\s+)?remember(?:\s+that)?\s+(.+)$/i);
  if (m) return { intent: 'remember', slots: { fact: m[1] } };
  m = t.match(/^(?:please\s+)?(?:text|sms|message)\s+(.+?)(?:\s+(?:that|saying|to say)\s+|:\s*)(.+)$/i);
  if (m) return { intent: 'send_text', slots: { recipient: m[1], text: m[2] } };
  m = t.match(/^(?:please\s+)?(?:text|sms|message)\s+(.+)$/i);
  if (m) {
    // "Text +1 555 000 9999 hello": the number is the recipient, the rest is the text.
    const split = splitRecipient(m[1] as string);
    return {
      intent: 'send_text',
      slots: { recipient: split.recipient, ...(split.rest ? { text: split.rest } : {}) },
    };
  }
  m = t.match(
    /^(?:please\s+)?e-?mail\s+(.+?)(?:\s+(?:about|re:?|regarding)\s+(.+?))?(?::\s*|\s+saying\s+|\s+that\s+)(.+)$/i,
  );
  if (m)
    return {
      intent: 'send_email',
      slots: { recipient: m[1], ...(m[2] ? { subject: m[2] } : {}), body: m[3] },
    };
  m = t.match(/^(?:please\s+)?e-?mail\s+(.+)$/i);
  if (m) return { intent: 'send_email', slots: { recipient: m[1] } };
  m = t.match(/^(?:please\s+)?(?:create|add|make|open)\s+(?:a\s+)?(?:new\s+)?task\s*(?:to|for|:)?\s*(.+)$/i);
  if (m) return { intent: 'create_task', slots: { name: m[1] } };
  if (
    /\b(what'?s|what is|show|list|anything)\b.*\b(calendar|schedule|showings?|events?|appointments?)\b/i.test(
      t,
    )
  ) {
    return { intent: 'calendar', slots: { range: extractDayRange(t, input.now, input.timezone) } };
  }
  m = t.match(
    /^(?:please\s+)?(?:schedule|book|add|create|put)\s+(?:an?\s+)?(.*?(?:showing|meeting|appointment|event|visit|inspection).*)$/i,
  );
  if (m) {
    const when = extractTime(t, input.now, input.timezone);
    const title = (m[1] ?? '')
      .replace(when?.text ?? '', '')
      .replace(/\s+(on|at|for)\s*$/i, '')
      .replace(/\s+on the calendar/i, '')
      .trim();
    return {
      intent: 'create_event',
      slots: {
        title,
        ...(when?.hasTime ? { start: when.start, ...(when.end ? { end: when.end } : {}) } : {}),
      },
    };
  }
  m = t.match(/^(?:who\s+is|look\s*up|lookup|find|search(?:\s+for)?)\s+(.+?)\??$/i);
  if (m) return { intent: 'lookup', slots: { query: m[1] } };
  return undefined;
}

const REQUIRED: Record<string, string[]> = {
  send_text: ['recipient', 'text'],
  send_email: ['recipient', 'subject', 'body'],
  create_event: ['title', 'start'],
  create_task: ['name'],
  remember: ['fact'],
  lookup: ['query'],
  calendar: ['range'],
};

function mergeFollowUp(input: PlannerInput, text: string): Intent | undefined {
  const pending = input.pendingIntent;
  if (!pending) return undefined;
  if (!pending.missing.length) return { intent: pending.intent, slots: pending.slots };
  const slots = mergeAnswer(pending.intent, pending.slots, pending.missing, text, {
    now: input.now,
    timezone: input.timezone,
  });
  return { intent: pending.intent, slots };
}

const HELP =
  'I can text a contact ("text Maria that the plumber comes at 3"), email someone, put an event on the calendar, create a task, look up a contact, tell you what is on the calendar, or remember something. What would you like?';

function chat(input: PlannerInput, t: Extract<Trigger, { kind: 'chat' }>): Plan {
  if (CANCEL.test(t.text))
    return { kind: 'respond', text: input.pendingIntent ? 'Okay, I dropped that request.' : 'Okay.' };
  // A follow-up that fills the missing slot belongs to the pending request, even when it reads like a new
  // one ("Please remember to leave the gate open" as the text of a message); otherwise try a new intent.
  const pending = input.pendingIntent;
  const merged = mergeFollowUp(input, t.text);
  const filled =
    pending !== undefined &&
    merged !== undefined &&
    pending.missing.some(
      (s) => merged.slots[s] !== undefined && merged.slots[s] !== '' && merged.slots[s] !== pending.slots[s],
    );
  const intent = (filled ? merged : detect(t.text, input)) ?? merged;
  if (!intent) return { kind: 'respond', text: HELP };
  const missing = (REQUIRED[intent.intent] ?? []).filter(
    (s) => intent.slots[s] === undefined || intent.slots[s] === '',
  );
  if (missing.length) {
    return {
      kind: 'ask',
      text: askFor(intent.intent, missing),
      intent: { ...intent, missing },
    };
  }
  const obs = input.observations;
  const s = intent.slots as Record<string, string>;
  switch (intent.intent) {
    case 'remember':
      return remember(input, s.fact as string);
    case 'send_text': {
      const phone = extractPhones(s.recipient as string)[0];
      const lookup = find(obs, 'search_contacts');
      if (!lookup)
        return {
          kind: 'calls',
          calls: [
            {
              name: 'search_contacts',
              args: { query: phone ?? s.recipient, limit: 3 },
              reason: 'Find the recipient',
            },
          ],
        };
      const contact = firstContact(lookup);
      if (!contact?.phones[0])
        return {
          kind: 'respond',
          text: `I could not find a contact called “${s.recipient}”. Add them to the contacts first, or give me their number.`,
        };
      const send = find(obs, 'send_message');
      if (!send) {
        const body = (s.text as string).replace(/^\s*(he|she|they)\b/i, (w) => w.toLowerCase());
        const textOut = `Hi ${firstName(contact.name)}, ${body.charAt(0).toLowerCase()}${body.slice(1)}${/[.!?]$/.test(body) ? '' : '.'}`;
        return {
          kind: 'calls',
          calls: [
            {
              name: 'send_message',
              args: { to: phone ?? contact.phones[0], text: textOut },
              reason: `Text ${contact.name} as asked`,
            },
          ],
        };
      }
      return { kind: 'respond', text: outcome(send, `Sent to ${contact.name}.`, `text ${contact.name}`) };
    }
    case 'send_email': {
      if (!input.hasTool('send_email')) return { kind: 'respond', text: 'Email is not configured here.' };
      let address = extractEmails(s.recipient as string)[0];
      if (!address) {
        const lookup = find(obs, 'search_contacts');
        if (!lookup)
          return {
            kind: 'calls',
            calls: [
              {
                name: 'search_contacts',
                args: { query: s.recipient, limit: 3 },
                reason: 'Find the recipient',
              },
            ],
          };
        address = firstContact(lookup)?.emails[0];
        if (!address)
          return { kind: 'respond', text: `I could not find an email address for “${s.recipient}”.` };
      }
      const send = find(obs, 'send_email');
      if (!send)
        return {
          kind: 'calls',
          calls: [
            {
              name: 'send_email',
              args: { to: address, subject: s.subject, body: s.body },
              reason: 'Send the email as asked',
            },
          ],
        };
      return { kind: 'respond', text: outcome(send, `Email sent to ${address}.`, `email ${address}`) };
    }
    case 'create_event': {
      if (!input.hasTool('create_calendar_event'))
        return { kind: 'respond', text: 'The calendar is not configured here.' };
      const done = find(obs, 'create_calendar_event');
      if (!done) {
        const start = s.start as string;
        const end = s.end ?? new Date(Date.parse(start) + 30 * 60_000).toISOString();
        return {
          kind: 'calls',
          calls: [
            {
              name: 'create_calendar_event',
              args: { summary: s.title, start, end, timeZone: input.timezone },
              reason: 'Put it on the calendar',
            },
          ],
        };
      }
      return { kind: 'respond', text: outcome(done, `“${s.title}” is on the calendar.`, 'create the event') };
    }
    case 'create_task': {
      if (!input.hasTool('create_task'))
        return { kind: 'respond', text: 'The task board is not configured here.' };
      const done = find(obs, 'create_task');
      if (!done)
        return {
          kind: 'calls',
          calls: [{ name: 'create_task', args: { name: s.name }, reason: 'Create the task as asked' }],
        };
      return { kind: 'respond', text: outcome(done, `Task created: “${s.name}”.`, 'create the task') };
    }
    case 'calendar': {
      if (!input.hasTool('list_calendar_events'))
        return { kind: 'respond', text: 'The calendar is not configured here.' };
      const range = intent.slots.range as { start: string; end: string; label: string };
      const list = find(obs, 'list_calendar_events');
      if (!list)
        return {
          kind: 'calls',
          calls: [
            {
              name: 'list_calendar_events',
              args: { timeMin: range.start, timeMax: range.end },
              reason: `Read the calendar for ${range.label}`,
            },
          ],
        };
      if (list.status !== 'ok')
        return { kind: 'respond', text: `I could not read the calendar: ${list.error}` };
      const events =
        (list.result as
          | { events?: Array<{ summary?: string; start?: string }> }
          | Array<{ summary?: string; start?: string }>) ?? [];
      const items = Array.isArray(events) ? events : (events.events ?? []);
      if (!items.length) return { kind: 'respond', text: `Nothing on the calendar for ${range.label}.` };
      const lines = items.map(
        (e) =>
          `• ${e.start ? new Date(e.start).toLocaleTimeString('en-US', { timeZone: input.timezone, hour: 'numeric', minute: '2-digit' }) : ''} ${e.summary ?? '(no title)'}`,
      );
      return { kind: 'respond', text: `On the calendar for ${range.label}:\n${lines.join('\n')}` };
    }
    case 'lookup': {
      const lookup = find(obs, 'search_contacts');
      if (!lookup)
        return {
          kind: 'calls',
          calls: [
            { name: 'search_contacts', args: { query: s.query, limit: 3 }, reason: 'Look the person up' },
          ],
        };
      if (input.hasTool('search_conversations') && !find(obs, 'search_conversations')) {
        return {
          kind: 'calls',
          calls: [
            { name: 'search_conversations', args: { query: s.query }, reason: 'Find related conversations' },
          ],
        };
      }
      const contacts =
        (
          lookup.result as {
            contacts?: Array<{ name: string; phones: string[]; emails: string[]; role?: string | null }>;
          }
        )?.contacts ?? [];
      const convs = find(obs, 'search_conversations');
      const convCount = ((convs?.result as { hits?: unknown[] } | undefined)?.hits ?? []).length;
      if (!contacts.length)
        return {
          kind: 'respond',
          text: `No contact matches “${s.query}”.${convCount ? ` ${convCount} conversation(s) mention it.` : ''}`,
        };
      const lines = contacts.map(
        (c) => `• ${c.name}${c.role ? ` (${c.role})` : ''} — ${[...c.phones, ...c.emails].join(', ')}`,
      );
      return {
        kind: 'respond',
        text: `${lines.join('\n')}${convCount ? `\n${convCount} conversation(s) mention “${s.query}”.` : ''}`,
      };
    }
    default:
      return { kind: 'respond', text: HELP };
  }
}

const memoryText = (result: unknown) =>
  typeof result === 'string' ? result : ((result as { content?: string } | undefined)?.content ?? '');

function remember(input: PlannerInput, fact: string): Plan {
  if (!input.hasTool('read_file') || !input.hasTool('write_file'))
    return { kind: 'respond', text: 'Memory is not configured here.' };
  const obs = input.observations;
  const read = find(obs, 'read_file');
  if (!read)
    return {
      kind: 'calls',
      calls: [{ name: 'read_file', args: { path: 'MEMORY.md' }, reason: 'Read the memory file' }],
    };
  const write = find(obs, 'write_file');
  if (!write) {
    const current =
      typeof read.result === 'string'
        ? read.result
        : ((read.result as { content?: string } | undefined)?.content ?? '');
    const day = input.now.toISOString().slice(0, 10);
    const content = `${current.replace(/\s*$/, '')}\n- ${fact.replace(/\.$/, '')} (noted ${day})\n`;
    return {
      kind: 'calls',
      calls: [
        {
          name: 'write_file',
          args: { path: 'MEMORY.md', content },
          reason: 'Save the fact to long-term memory',
        },
      ],
    };
  }
  return { kind: 'respond', text: outcome(write, `Noted: ${fact}`, 'save that to memory') };
}
