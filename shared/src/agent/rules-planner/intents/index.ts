import type { ChatIntent } from '../intent';
import { calendar } from './calendar';
import { createEvent } from './create-event';
import { createTask } from './create-task';
import { lookup } from './lookup';
import { policyChange } from './policy-change';
import { remember } from './remember';
import { reportRepair } from './report-repair';
import { research } from './research';
import { scheduleFollowUpIntent } from './schedule-followup';
import { sendEmail } from './send-email';
import { sendText } from './send-text';
import { teamQuestion } from './team-question';

/** The chat intents in the order a new request is tried against them (the first that recognises it wins). */
export const CHAT_INTENTS: readonly ChatIntent[] = [
  // First: "don't text tenants without approval" is a request about the policy, not a text to send.
  policyChange,
  remember,
  // Before sendText: "text Maria tomorrow at 9 if …" is a scheduled, conditional text, not an immediate one.
  scheduleFollowUpIntent,
  research,
  sendText,
  sendEmail,
  createTask,
  calendar,
  createEvent,
  lookup,
  // A statement of something broken (never a question, which the team question below searches for).
  reportRepair,
  // Last: any other question is answered from the conversations and notes.
  teamQuestion,
];
