import type { ComponentType, SVGProps } from 'react';
import {
  CalendarIcon,
  ChatIcon,
  EmailIcon,
  PhoneIcon,
  SmsIcon,
  TaskIcon,
  ToolIcon,
} from '../../components/icons';
import { humanize } from '../../lib/format';

export interface ToolView {
  label: string;
  icon: ComponentType<SVGProps<SVGSVGElement>>;
  /** Arguments naming who receives it, shown first ("To"). */
  recipients: string[];
  /** Text the person may rewrite before approving (the draft itself); recipients are never editable. */
  editable: string[];
  maxLength?: Record<string, number>;
  /** Plumbing a person never needs to read (mail threading headers): kept in the args, not shown. */
  hidden?: string[];
}

const VIEWS: Record<string, Omit<ToolView, 'icon'> & { icon?: ToolView['icon'] }> = {
  send_message: {
    label: 'Text message',
    icon: SmsIcon,
    recipients: ['to'],
    editable: ['text'],
    maxLength: { text: 1600 },
  },
  send_email: {
    label: 'Email',
    icon: EmailIcon,
    recipients: ['to', 'cc', 'bcc'],
    editable: ['subject', 'body'],
    hidden: ['threadId', 'inReplyTo', 'references', 'messageId'],
  },
  create_calendar_event: {
    label: 'Calendar event',
    icon: CalendarIcon,
    recipients: ['attendees'],
    editable: ['summary', 'title', 'description', 'location'],
  },
  // List, assignee and due day show as facts under the name (the list and the member's full name are
  // filled in by the tool before the card is made).
  create_task: { label: 'New task', icon: TaskIcon, recipients: [], editable: ['name', 'description'] },
  update_task: { label: 'Task update', icon: TaskIcon, recipients: [], editable: ['name', 'description'] },
  delete_task: { label: 'Delete task', icon: TaskIcon, recipients: [], editable: [] },
  escalate: { label: 'Page the on-call person', icon: PhoneIcon, recipients: ['to'], editable: ['message'] },
  schedule_followup: {
    label: 'Scheduled check',
    icon: SmsIcon,
    recipients: ['to'],
    editable: ['text'],
    maxLength: { text: 1600 },
    // Shown in words by ScheduleFacts (when, only if, kind); the approval still binds them.
    hidden: ['at', 'condition', 'kind', 'toName'],
  },
  create_contact: { label: 'New contact', icon: ChatIcon, recipients: [], editable: [] },
  update_contact: { label: 'Contact update', icon: ChatIcon, recipients: [], editable: [] },
  delete_contact: { label: 'Delete contact', icon: ChatIcon, recipients: [], editable: [] },
  // The diff is shown by PolicyChangeDiff (workspace-files); the whole new text is not repeated below it, and
  // the base version (a hash the system records) shows only as the stale warning.
  propose_policy_change: {
    label: 'Policy change',
    icon: ToolIcon,
    recipients: [],
    editable: [],
    hidden: ['path', 'text', 'reason', 'baseVersion'],
  },
};

const TEXTY = /^(text|body|message|content|subject|description|notes?)$/i;

/** How a card presents a tool's arguments; unknown tools get a generic view that still allows text edits. */
export function toolView(tool: string, args: Record<string, unknown>): ToolView {
  const known = VIEWS[tool];
  if (known) return { icon: ToolIcon, ...known };
  return {
    label: humanize(tool),
    icon: ToolIcon,
    recipients: Object.keys(args).filter((k) => /^(to|recipient|email|phone)$/i.test(k)),
    editable: Object.keys(args).filter((k) => TEXTY.test(k) && typeof args[k] === 'string'),
  };
}

export const FIELD_LABELS: Record<string, string> = {
  to: 'To',
  cc: 'Cc',
  bcc: 'Bcc',
  text: 'Message',
  body: 'Message',
  subject: 'Subject',
  summary: 'Title',
  attendees: 'Guests',
  assignees: 'Assignees',
  assignee: 'Assignee',
  listName: 'List',
  dueDate: 'Due',
};
export const fieldLabel = (k: string) => FIELD_LABELS[k] ?? humanize(k);
