import { emailTriageText, type InboundTriageDeps, safeTriageNote } from '../agent/inbound-triage';
import type { LeadFactRecorder } from '../agent/lead-intake';
import { PROMPT_HISTORY } from '../agent/plan-step';
import { reasonRedrafts } from '../agent/redraft-rules';
import { type AgentDeps, driveRun } from '../agent/run-agent';
import { openTurn } from '../agent/turn';
import type { Trigger } from '../agent/types';
import type { Conversation } from '../contracts/conversations';
import type { EventEnvelope, EventOf } from '../contracts/events';
import { isTeamMail } from '../domain/email-auth';
import { leadPropertyOf } from '../domain/lead-property';
import { mediaIdFor, PHOTO_NOTE, withMediaNotes } from '../domain/media';
import { PREVIEW_CHARS, peoplePreview } from '../domain/preview';
import { isProspectRole } from '../domain/prospect-role';
import { ConflictError, isAppError } from '../errors';
import type { CallStore } from '../ports/call-store';
import type { FollowUpStore } from '../ports/followup-store';
import type { ResearchDeps } from '../research/engine-deps';
import type { ContactDirectory } from '../tools/contact-directory';
import { type AssignDeps, assignByProperty } from './assign-conversation';
import type { ConditionDeps } from './check-followup-condition';
import { type DecideApprovalDeps, type DecideApprovalInput, decideApproval } from './decide-approval';
import { handleCallEvent } from './handle-call-event';
import { leadAfterAction, leadWroteUs } from './lead-tracking';
import {
  adoptPersonThread,
  candidateKeys,
  findPersonThread,
  isFresh,
  type Person,
  type PersonThread,
  personKeyOf,
} from './person-thread';
import { researchChatReview, researchReviewByText } from './research-chat-review';
import { supersedeForNewerInbound, supersedeForSentMail, supersedeForSmsCopy } from './supersede-drafts';

export interface AgentOutcome {
  runId?: string;
  outcome: string;
}

export interface RunEventGroupDeps extends AgentDeps, InboundTriageDeps {
  /** The policy hooks, plus recording facts read from inbound data (the leads email's fields). */
  policy?: AgentDeps['policy'] & Partial<LeadFactRecorder>;
  directory?: ContactDirectory;
  /** The policy's preconditions for a decision taken by text (the same check the API's approve runs). */
  checkDecision?: DecideApprovalDeps['checkDecision'];
  /** Phone calls as their Quo events build them up (follow #20). */
  calls?: CallStore;
  /** Scheduled conditional texts and reminders (follow #20). */
  followups?: FollowUpStore;
  /** What follow-up conditions check at their time: ClickUp tasks and calendar events, when connected. */
  board?: ConditionDeps['board'];
  calendar?: ConditionDeps['calendar'];
  /** The team's preferences partition: property assignments make a conversation someone's (follow #20). */
  facts?: AssignDeps['facts'];
  /** The research engine (issue 21): each `research.node` message is one step of a task graph. */
  research?: ResearchDeps;
}

const APPROVE = /^\s*(yes|y|yep|approve|approved|send( it)?|ok(ay)?|go ahead|confirm)\b/i;
const DENY = /^\s*(no|n|nope|deny|cancel|don'?t|do not|stop)\b/i;
const EDIT = /^\s*edit\b[:\s]*([\s\S]+)$/i;

/**
 * The worker's agent use case: turns a group of events (one key, coalesced by the cooldown) into an agent run. Decisions resume the
 * paused run; chat and texts from team members pass the pending-action gate first (SPEC §3.2 step 1);
 * inbound texts and emails from outside start a triage run. Inbound content is only ever data here: it
 * never reaches the gate, so an outside text cannot approve anything (SPEC §6.4).
 */
export async function runEventGroup(deps: RunEventGroupDeps, events: EventEnvelope[]): Promise<AgentOutcome> {
  const primary = events[events.length - 1] as EventEnvelope;
  switch (primary.type) {
    case 'approval.decided':
    case 'run.resume': {
      const { conversationId, runId } = primary.payload;
      deps = await openTurn(deps, conversationId, runId);
      const run = await deps.runs.get(conversationId, runId);
      if (!run) return { outcome: `no run ${runId}` };
      if (run.status !== 'awaiting_approval' && run.status !== 'running')
        return { runId, outcome: `run already ${run.status}` };
      const out = await driveRun(deps, {
        conversation: { id: conversationId, create: () => missing(conversationId), inbound: [] },
        trigger: { kind: 'chat', channel: 'web', text: '', user: { id: 'system', email: 'system' } },
        runId,
        eventIds: [primary.id],
        key: primary.key,
      });
      // A reply sent to a lead, or a showing booked, moves the lead (follow #20). Read through the turn (the
      // card and the conversation are in its partition read: no request); a move is one more commit.
      if (primary.type === 'approval.decided') {
        await leadAfterAction(deps, { conversationId, actionId: primary.payload.actionId });
        await deps.turn?.flush();
      }
      return out;
    }
    case 'chat.message':
      return chatTurn(deps, events, primary);
    case 'sms.received':
      return andUnseen(
        deps,
        events,
        await inboundSms(deps, events as Array<EventOf<'sms.received'>>, primary as EventOf<'sms.received'>),
      );
    case 'email.received':
      return andUnseen(
        deps,
        events,
        await inboundEmail(
          deps,
          events as Array<EventOf<'email.received'>>,
          primary as EventOf<'email.received'>,
        ),
      );
    case 'call.completed':
    case 'call.summarized':
    case 'call.transcribed':
      return handleCallEvent(deps, primary);
    // A reply a person sent outside Switchboard withdraws the drafts it answers (use-cases/supersede-drafts).
    case 'sms.outgoing':
    case 'sms.delivered':
      return supersedeForSmsCopy(deps, primary);
    case 'email.sent':
      return supersedeForSentMail(deps, primary);
    case 'research.node':
      return researchStep(deps, primary);
    default:
      return { outcome: `no agent work for ${primary.type}` };
  }
}

/**
 * A team member's chat message: the pending-draft gate, a research plan's review, or a run. In Claude mode
 * the prompt needs the conversation's facts and its newest messages: both are read alongside the turn's
 * partition query (one round trip before the first model call, not two in a row; issue 14).
 */
async function chatTurn(
  outer: RunEventGroupDeps,
  events: EventEnvelope[],
  primary: EventOf<'chat.message'>,
): Promise<AgentOutcome> {
  const p = primary.payload;
  const prompt = outer.model !== undefined;
  const early = prompt
    ? outer.policy?.holdFacts?.(p.conversationId, undefined, { readNow: true })
    : undefined;
  try {
    const deps = await openTurn(outer, p.conversationId, `run_${primary.id}`, {
      ...(prompt ? { history: PROMPT_HISTORY } : {}),
    });
    const gate = await pendingGate(deps, p.conversationId, p.text, p.user, { channel: 'web' });
    if (gate) return gate;
    const reviewed = await researchChatReview(deps, p.conversationId, p.text, p.user, {
      eventId: primary.id,
    });
    if (reviewed) return reviewed;
    return await driveRun(deps, {
      conversation: { id: p.conversationId, create: () => missing(p.conversationId), inbound: [] },
      trigger: { kind: 'chat', channel: 'web', text: p.text, user: p.user },
      messageIds: events.flatMap((e) => (e.type === 'chat.message' ? [e.payload.messageId] : [])),
      runId: `run_${primary.id}`,
      eventIds: [primary.id],
      key: primary.key,
    });
  } finally {
    early?.();
  }
}

/**
 * A research node's step: the engine's own, or a run in the conversation (a card; a text to the asker). The
 * engine's use cases are imported on the first research event, not at every cold start (issue 16).
 */
async function researchStep(deps: RunEventGroupDeps, event: EventOf<'research.node'>): Promise<AgentOutcome> {
  if (!deps.research) return { outcome: 'research is not configured' };
  const withResearch = { ...deps, research: deps.research };
  if (event.payload.step === 'propose') {
    const { proposeResearchWrite } = await import('./propose-research-write');
    return proposeResearchWrite(withResearch, event);
  }
  if (event.payload.step === 'tell') {
    const { tellResearchByText } = await import('./tell-research-by-text');
    return tellResearchByText(withResearch, event);
  }
  const { runResearchNode } = await import('./run-research-node');
  return runResearchNode(deps.research, event);
}

/** Events of the group that the primary's (already finished) run never saw get a run of their own. */
async function andUnseen(
  deps: RunEventGroupDeps,
  events: EventEnvelope[],
  out: AgentOutcome & { unseen?: string[] },
): Promise<AgentOutcome> {
  const unseen = events.filter((e) => out.unseen?.includes(e.id));
  if (!unseen.length) return { ...(out.runId ? { runId: out.runId } : {}), outcome: out.outcome };
  return runEventGroup(deps, unseen);
}

/** The classifier's note (never throws: a failed triage is logged, the run goes on), logged with its class. */
async function safeTriage(deps: RunEventGroupDeps, text: string) {
  const note = await safeTriageNote(deps, text);
  if (note) deps.log.info('triage.classified', { ...note, cues: note.cues.length });
  return note;
}

/**
 * The conversation a trigger key feeds (a new one is named after the event), and the turn opened on it. With a
 * turn store only the key is read here: the conversation itself comes with the turn's one partition query.
 */
async function conversationFor(deps: RunEventGroupDeps, person: Person, eventId: string) {
  const settings = { ...deps, threadWindowDays: deps.settings.threadWindowDays };
  if (!deps.turns) {
    const thread = await findPersonThread(settings, person);
    const existing = thread.conversation;
    return { existing, convId: existing?.id ?? `c_${eventId}`, deps, thread };
  }
  // One thread per person: this channel's key first (the steady state: one read), then the person's.
  const keys = candidateKeys(person);
  let convId: string | undefined;
  let foundBy: string | undefined;
  for (const k of keys) {
    convId = await deps.turns.conversationIdFor(k);
    if (convId) {
      foundBy = k;
      break;
    }
  }
  let turn = await openTurn(deps, convId ?? `c_${eventId}`, `run_${eventId}`, { isNew: !convId });
  let existing = convId ? await turn.conversations.get(convId) : undefined;
  if (existing && !isFresh(existing, deps.clock(), deps.settings.threadWindowDays)) {
    // Quiet for longer than the window: a new conversation (the keys are repointed when it is created).
    existing = undefined;
    foundBy = undefined;
    turn = await openTurn(deps, `c_${eventId}`, `run_${eventId}`, { isNew: true });
  }
  const thread: PersonThread = {
    ...(existing ? { conversation: existing } : {}),
    personKey: personKeyOf(person),
    ...(existing && foundBy ? { foundBy } : {}),
  };
  return { existing, convId: existing?.id ?? `c_${eventId}`, deps: turn, thread };
}

function missing(id: string): never {
  throw new Error(`Conversation ${id} does not exist`);
}

/** Who a text came from, as far as the contact directory knows them. */
type SmsSender = Awaited<ReturnType<NonNullable<RunEventGroupDeps['directory']>['byPhone']>>;

/** One inbound text group on its way to a run: the sender, the thread it joins and its messages. */
interface SmsTurn {
  /** The deps with the turn opened on the conversation; `outer` is the worker's, for the follow-ups. */
  deps: RunEventGroupDeps;
  outer: RunEventGroupDeps;
  found: Awaited<ReturnType<typeof conversationFor>>;
  events: Array<EventOf<'sms.received'>>;
  primary: EventOf<'sms.received'>;
  from: string;
  key: string;
  contact: SmsSender;
  name: string;
  texts: string[];
  inbound: Array<{ id: string; text: string; at: string; author: string; media?: MediaRef[] }>;
  mediaRefs: MediaRef[];
}

type MediaRef = { id: string; type: string | null };

async function inboundSms(
  deps: RunEventGroupDeps,
  events: Array<EventOf<'sms.received'>>,
  primary: EventOf<'sms.received'>,
) {
  const from = primary.payload.from;
  const contact = await deps.directory?.byPhone(from).catch(() => undefined);
  const key = `sms:${from}`;
  const person: Person = {
    ...(contact?.id ? { contactId: contact.id } : {}),
    phones: contact?.phones.length ? [from, ...contact.phones] : [from],
    ...(contact?.emails[0] ? { email: contact.emails[0] } : {}),
    channelKey: key,
  };
  const found = await conversationFor(deps, person, primary.id);
  const name = contact?.name ?? from;
  const inboundMedia = events.map((e) =>
    (e.payload.media ?? []).map((m, i) => ({ id: mediaIdFor(e.id, i), type: m.type, url: m.url })),
  );
  await keepMedia(found.deps, found.convId, events, inboundMedia);
  const turn: SmsTurn = {
    deps: found.deps,
    outer: deps,
    found,
    events,
    primary,
    from,
    key,
    contact,
    name,
    texts: events.map((e, i) => withMediaNotes(e.payload.text, inboundMedia[i])),
    inbound: events.map((e, i) => smsMessage(e, name, inboundMedia[i] ?? [])),
    mediaRefs: inboundMedia.flat().map(({ id, type }) => ({ id, type })),
  };
  return contact?.internal ? teamMemberText(turn, contact) : outsideText(turn);
}

function smsMessage(e: EventOf<'sms.received'>, author: string, media: MediaRef[]) {
  // A photo-only text is stored as "[photo]", so previews and history never show an empty message.
  const text = e.payload.text.trim() || (media.length ? PHOTO_NOTE : e.payload.text);
  const refs = media.map(({ id, type }) => ({ id, type }));
  return { id: `m_${e.id}`, text, at: e.occurredAt, author, ...(refs.length ? { media: refs } : {}) };
}

/** The conversation a text starts; created in the run's first write, so `urgent` is known by then. */
function smsConversation(t: SmsTurn, urgent: Conversation['urgent']): Conversation {
  const at = t.deps.clock().toISOString();
  const { contact, name } = t;
  return {
    ...(urgent ? { urgent } : {}),
    id: t.found.convId,
    title: contact?.internal ? `${name} (team, by text)` : name,
    source: 'sms',
    contact: {
      name,
      phone: t.from,
      internal: contact?.internal ?? false,
      ...(contact?.id ? { id: contact.id } : {}),
    },
    // People's words: who wrote and the first line (domain/preview.ts), never the assistant's summary.
    preview:
      peoplePreview({ role: 'inbound', text: t.texts.join('\n'), author: { kind: 'contact', name } }) ?? '',
    createdAt: at,
    updatedAt: at,
    lastMessageAt: t.primary.occurredAt,
    createdBy: 'system',
    triggerKey: t.key,
    channels: ['sms'],
    pendingCount: 0,
    readBy: {},
  };
}

/** A team member texting in: a chat turn by text, through the pending-draft gate first. */
async function teamMemberText(t: SmsTurn, contact: NonNullable<SmsSender>) {
  const { deps, primary, found } = t;
  const convId = found.convId;
  const text = t.texts.join('\n');
  const user = { id: contact.id, email: contact.emails[0] ?? `${t.from}@sms`, name: t.name };
  const run = { runId: `run_${primary.id}`, eventIds: t.events.map((e) => e.id), key: primary.key };
  if (found.existing) {
    for (const m of t.inbound) {
      await deps.conversations.appendMessage({
        id: m.id,
        conversationId: convId,
        role: 'user',
        text: m.text,
        createdAt: m.at,
        channel: 'sms',
        author: { kind: 'user', name: t.name, id: contact.id },
      });
    }
    const gate = await pendingGate(deps, convId, text, user, { channel: 'sms', phone: t.from, ...run });
    if (gate) return gate;
    // "run it" / "cancel" / "remove 2" to a research plan texted to them: answered by text, like the gate.
    const texts = t.texts.map((x, i) => ({ text: x, eventId: t.events[i]?.id ?? primary.id }));
    const reply = await researchReviewByText(deps, convId, texts, user);
    if (reply)
      return driveRun(deps, {
        conversation: { id: convId, create: () => missing(convId), inbound: [] },
        trigger: { kind: 'chat', channel: 'sms', text, user, phone: t.from },
        ...run,
        reply,
      });
  }
  return driveRun(deps, {
    conversation: {
      id: convId,
      create: () => smsConversation(t, undefined),
      inbound: found.existing ? [] : t.inbound,
    },
    trigger: { kind: 'chat', channel: 'sms', text, user, phone: t.from },
    messageIds: t.inbound.map((m) => m.id),
    ...run,
  });
}

/** A text from outside: triage (urgent, lead), then the rules or the model draft the answer. */
async function outsideText(t: SmsTurn) {
  const { deps, primary, found, texts } = t;
  const { existing, convId } = found;
  // A newer text from outside: the waiting draft answers a conversation that has moved on.
  await supersedeForNewerInbound(deps, existing, t.name, texts.join(' '), `run_${primary.id}`);
  const triage = await safeTriage(deps, texts.join('\n'));
  // A keyword-free emergency ("water is pouring through the ceiling") is as urgent as a keyword one.
  const urgent = t.events.some((e) => e.payload.urgent) || triage?.triageClass === 'emergency';
  const urgentMark = urgent ? { at: primary.occurredAt, reason: texts.join(' ').slice(0, 160) } : undefined;
  // An urgent text in a conversation that already exists marks it too (a new one carries it from create).
  if (urgentMark && existing) await deps.conversations.setInboxFields(convId, { urgent: urgentMark });
  const trigger: Trigger = {
    kind: 'inbound_sms',
    from: t.from,
    texts,
    urgent,
    ...(triage ? { triage } : {}),
    ...(t.mediaRefs.length ? { media: t.mediaRefs } : {}),
    ...(existing?.lead ? { lead: existing.lead } : {}),
  };
  // A newcomer or a prospect ("rental lead" in the team's contacts) asking to see a unit is a lead too: an
  // unknown number's card adds them as a prospect (issue 17). A tenant booking a visit is not.
  const prospect = !t.contact || isProspectRole(t.contact.role);
  const isLead = triage?.triageClass === 'lead' || (prospect && triage?.triageClass === 'showing');
  // A newcomer's claims, or those of someone the assistant added as a prospect, feed the qualification (facts
  // about the number); a tenant asking for a friend is not the lead.
  if (isLead && !urgent && (!t.contact || t.contact.role === 'prospect')) await recordTextLeadFacts(t);
  return driveRun(deps, {
    conversation: { id: convId, create: () => smsConversation(t, urgentMark), inbound: t.inbound },
    trigger,
    runId: `run_${primary.id}`,
    eventIds: t.events.map((e) => e.id),
    key: primary.key,
    settle: (turn) =>
      afterInbound({ ...t.outer, ...turn }, found, {
        channelKey: t.key,
        channel: 'sms',
        isLead,
        text: texts.join(' '),
      }),
  });
}

/**
 * What follows an outside message's run (follow #20): the thread joins the person's one thread, a lead who
 * writes puts the ball in our court (unless booked or out), and a named property assigns the conversation.
 * Called with the turn's deps before its last commit (`settle`), so these writes cost no request of their own
 * (issue 14's budget): the conversation is read from the turn, its fields and keys are staged.
 */
async function afterInbound(
  outer: RunEventGroupDeps,
  found: Awaited<ReturnType<typeof conversationFor>>,
  msg: { channelKey: string; channel: 'sms' | 'email'; isLead: boolean; text: string },
) {
  const { existing, convId } = found;
  await adoptPersonThread(threadDeps(outer), {
    conversationId: convId,
    thread: found.thread,
    channelKey: msg.channelKey,
    channel: msg.channel,
  });
  const property = msg.isLead || existing?.lead ? leadPropertyOf(msg.text) : undefined;
  await leadWroteUs(outer, {
    conversationId: convId,
    before: existing?.lead,
    isLead: msg.isLead,
    by: 'switchboard',
    ...(property ? { property } : {}),
  });
  await assignByProperty(outer, {
    ...(existing ? { conversation: existing } : {}),
    conversationId: convId,
    text: msg.text,
  });
}

/**
 * Where each photo really is, written before the run (the model may look at it while planning, before the
 * conversation exists). One put per photo; none for a plain text. Idempotent on replay (derived ids).
 */
async function keepMedia(
  deps: RunEventGroupDeps,
  conversationId: string,
  events: Array<EventOf<'sms.received'>>,
  media: Array<Array<{ id: string; type: string | null; url: string }>>,
) {
  if (!deps.media) return;
  for (const [i, e] of events.entries()) {
    for (const m of media[i] ?? []) {
      await deps.media.put({ ...m, conversationId, messageId: `m_${e.id}`, createdAt: e.occurredAt });
    }
  }
}

async function inboundEmail(
  deps: RunEventGroupDeps,
  events: Array<EventOf<'email.received'>>,
  primary: EventOf<'email.received'>,
) {
  const e = primary.payload;
  const key = `email:${e.threadId}`;
  const address = e.from.match(/<(.+)>/)?.[1] ?? e.from;
  const contact = await deps.directory?.byEmail?.(address).catch(() => undefined);
  const person: Person = {
    ...(contact?.id ? { contactId: contact.id } : {}),
    phones: contact?.phones ?? [],
    email: address.toLowerCase(),
    channelKey: key,
  };
  const found = await conversationFor(deps, person, primary.id);
  const turn = found.deps;
  // The header's display name, else the contact's name, else the bare address (never "<addr>").
  const name = e.from.replace(/<.*>/, '').trim().replace(/^"|"$/g, '') || contact?.name || address;
  const team = isTeamMail(e.from, e.dmarc, deps.settings.teamDomains ?? []);
  const inbound = events.map((ev) => ({
    id: `m_${ev.id}`,
    text: `${ev.payload.subject}\n\n${ev.payload.text}`,
    at: ev.occurredAt,
    author: name,
    email: { from: ev.payload.from, subject: ev.payload.subject },
  }));
  // A newer email from outside withdraws the thread's waiting draft; team mail is a request, not news.
  if (!team)
    await supersedeForNewerInbound(turn, found.existing, name, e.subject || e.text, `run_${primary.id}`);
  // Team mail is a request from one of us: no classifier, no lead facts, no acknowledgement.
  const triage = team ? undefined : await safeTriage(turn, emailTriageText(e.subject, e.text));
  const urgent = triage?.triageClass === 'emergency' && !triage.byKeywordFloor;
  const urgentMark = urgent ? { at: primary.occurredAt, reason: e.subject.slice(0, 160) } : undefined;
  if (urgentMark && found.existing)
    await turn.conversations.setInboxFields(found.convId, { urgent: urgentMark });
  const trigger: Trigger = {
    kind: 'inbound_email',
    email: e,
    count: events.length,
    ...(triage ? { triage } : {}),
    ...(urgent ? { urgent } : {}),
    ...(team ? { team: true } : {}),
    ...(found.existing?.lead ? { lead: found.existing.lead } : {}),
  };
  // A lead is a lead wherever it writes: the listing site's address or the general inbox.
  const isLead = !team && (e.source === 'leads' || triage?.triageClass === 'lead');
  if (e.source === 'leads' || triage?.triageClass === 'lead')
    await recordLeadFacts(turn, found.convId, events);
  return driveRun(turn, {
    conversation: {
      id: found.convId,
      create: () => emailConversation(turn, { convId: found.convId, primary, key, name, team, urgentMark }),
      inbound,
    },
    trigger,
    runId: `run_${primary.id}`,
    eventIds: events.map((x) => x.id),
    key: primary.key,
    settle: (held) =>
      afterInbound({ ...deps, ...held }, found, {
        channelKey: key,
        channel: 'email',
        isLead,
        text: `${e.subject} ${e.text}`,
      }),
  });
}

function emailConversation(
  deps: RunEventGroupDeps,
  c: {
    convId: string;
    primary: EventOf<'email.received'>;
    key: string;
    name: string;
    team: boolean;
    urgentMark: Conversation['urgent'];
  },
): Conversation {
  const at = deps.clock().toISOString();
  const { name } = c;
  const e = c.primary.payload;
  return {
    id: c.convId,
    // A sender without a display name is titled by the subject alone, not "<addr>: subject".
    title: (name.includes('@') ? e.subject || name : `${name}: ${e.subject}`).slice(0, 80),
    source: 'email',
    contact: { name, email: e.from.match(/<(.+)>/)?.[1] ?? e.from, ...(c.team ? { internal: true } : {}) },
    preview: `${name}: ${e.subject}`.slice(0, PREVIEW_CHARS),
    createdAt: at,
    updatedAt: at,
    lastMessageAt: c.primary.occurredAt,
    createdBy: 'system',
    triggerKey: c.key,
    channels: ['email'],
    ...(c.urgentMark ? { urgent: c.urgentMark } : {}),
    pendingCount: 0,
    readBy: {},
  };
}

/** The policy's fact recorder, when the composition has a policy that records facts. */
const leadRecorder = (deps: RunEventGroupDeps) =>
  deps.policy?.recordFacts && deps.policy.setFocus ? (deps.policy as LeadFactRecorder) : undefined;

/** The lead's own claims become facts about the lead before triage asks the policy about them. */
async function recordLeadFacts(
  deps: RunEventGroupDeps,
  conversationId: string,
  events: Array<EventOf<'email.received'>>,
) {
  const recorder = leadRecorder(deps);
  if (!recorder) return;
  // Lead extraction (chrono-node, libphonenumber) loads with the first email, not at the worker's init.
  const { recordLeadFromEmail } = await import('../agent/lead-intake');
  for (const ev of events) {
    const r = await recordLeadFromEmail(recorder, {
      conversationId,
      email: ev.payload,
      timezone: deps.settings.timezone,
      now: deps.clock(),
    });
    deps.log.info('lead.facts_recorded', {
      conversationId,
      messageId: ev.payload.messageId,
      recorded: r.recorded.length,
      skipped: r.skipped,
      focused: r.focused,
    });
  }
}

/** A texted lead's claims, as an emailed one's: the facts the qualification is asked about (issue 17). */
async function recordTextLeadFacts(t: SmsTurn) {
  const recorder = leadRecorder(t.deps);
  if (!recorder) return;
  const { recordLeadFromText } = await import('../agent/lead-intake');
  const r = await recordLeadFromText(recorder, {
    conversationId: t.found.convId,
    phone: t.from,
    texts: t.events.map((e) => ({ messageId: e.id, text: e.payload.text, date: e.occurredAt })),
    timezone: t.deps.settings.timezone,
    now: t.deps.clock(),
  });
  t.deps.log.info('lead.facts_recorded', {
    conversationId: t.found.convId,
    recorded: r.recorded.length,
    skipped: r.skipped,
    focused: r.focused,
  });
}

const threadDeps = (deps: RunEventGroupDeps) => ({
  conversations: deps.conversations,
  clock: deps.clock,
  threadWindowDays: deps.settings.threadWindowDays,
});

type GateChannel =
  | { channel: 'web' }
  /** A team member texting: the reply goes back by text, through a one-step run (guarded, exactly once). */
  | { channel: 'sms'; phone: string; runId: string; eventIds: string[]; key: string };

/**
 * While a draft waits in this conversation only confirm / cancel / edit is accepted; anything else gets a
 * reminder, and no new plan is made (SPEC §3.2 step 1). A decision that cannot be taken (an edit the tool's
 * schema refuses, a card someone else decided first) is answered with the reason, never dropped.
 */
async function pendingGate(
  deps: RunEventGroupDeps,
  conversationId: string,
  text: string,
  user: { id: string; email: string; name?: string },
  via: GateChannel,
): Promise<AgentOutcome | undefined> {
  const run = await deps.runs.findActive(conversationId);
  if (run?.status !== 'awaiting_approval' || !run.awaitingActionId) return undefined;
  const action = await deps.actions.get(conversationId, run.awaitingActionId);
  if (action?.status !== 'PENDING') return undefined;
  const decide = (input: Omit<DecideApprovalInput, 'conversationId' | 'actionId' | 'user'>) =>
    decideApproval(
      { ...deps, validateArgs: (tool, args) => deps.registry.validateArgs(tool, args) },
      { ...input, conversationId, actionId: action.id, user: { id: user.id, email: user.email } },
    );
  const edit = text.match(EDIT);
  const choices = 'Reply YES to send it, NO to cancel, or EDIT followed by the new text.';
  let reply: string;
  try {
    if (edit?.[1]) {
      const field = 'text' in action.args ? 'text' : 'body' in action.args ? 'body' : undefined;
      if (!field)
        reply = `This draft (${action.summary}) cannot be edited by text; approve or deny it in the app.`;
      else {
        await decide({ decision: 'approve', editedArgs: { ...action.args, [field]: edit[1].trim() } });
        reply = 'Edited and approved — sending it now.';
      }
    } else if (APPROVE.test(text)) {
      await decide({ decision: 'approve' });
      reply = 'Approved — sending it now.';
    } else if (DENY.test(text)) {
      const reason = text
        .replace(DENY, '')
        .replace(/^[\s,.;:!-]+/, '')
        .trim();
      // A reason the rules can apply ("no, say Saturday") feeds a new draft; anything else only cancels.
      const again = reason ? reasonRedrafts(action.args, reason) : false;
      await decide({ decision: 'deny', reason: reason || 'cancelled by text', redraft: again });
      reply = again ? 'Okay, not sent — I will draft it again with that.' : 'Okay, cancelled.';
    } else {
      reply = `A draft is waiting for a decision: ${action.summary}. ${choices}`;
    }
  } catch (e) {
    if (!isAppError(e) || e.retryable) throw e;
    reply =
      e instanceof ConflictError
        ? `${e.message}; nothing else to do.`
        : `That did not work: ${e.message}. The draft still waits: ${action.summary}. ${choices}`;
  }
  if (via.channel === 'sms') {
    return driveRun(deps, {
      conversation: { id: conversationId, create: () => missing(conversationId), inbound: [] },
      trigger: { kind: 'chat', channel: 'sms', text, user, phone: via.phone },
      runId: via.runId,
      eventIds: via.eventIds,
      key: via.key,
      reply,
    });
  }
  await deps.conversations.appendMessage({
    id: `m_gate_${action.id}_${Date.parse(deps.clock().toISOString())}`,
    conversationId,
    role: 'assistant',
    text: reply,
    createdAt: deps.clock().toISOString(),
    channel: 'web',
    author: { kind: 'assistant', name: 'Switchboard' },
  });
  await deps.audit.append({
    conversationId,
    type: 'gate.reply',
    actor: user.email,
    data: { actionId: action.id, reply },
  });
  await deps.turn?.flush();
  return { runId: run.id, outcome: `gate: ${reply}` };
}
