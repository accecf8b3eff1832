import type { ToolInfo } from './rulebase';

/**
 * The tool names and kinds of SPEC §3.4 (plus reply_to_sender, the runtime's in-channel answer to a team member), for validating the default rulebases where the runtime's real registry
 * is not at hand (tests, benchmarks, the workspace's "check my edited rules" path). The runtime passes its own
 * registry to createPolicyGuard, which is what counts.
 */
const reads = [
  'search_contacts',
  'list_messages',
  'get_message',
  'list_calls',
  'get_call',
  'get_call_summary',
  'get_call_transcript',
  'search_emails',
  'read_email',
  'list_calendar_events',
  'find_free_slots',
  'search_drive',
  'read_google_doc',
  'read_google_sheet',
  'read_drive_pdf',
  'list_lists',
  'get_tasks',
  'search_tasks',
  'search_conversations',
  'search_sms_history',
  'get_contact_sms_history',
  'read_file',
  'list_files',
  'load_skill',
  'search_files',
  'run_code',
  'web_search',
  'web_fetch',
  'ask_policy',
];

export const SPEC_WRITE_TOOLS = [
  'send_message',
  'create_contact',
  'update_contact',
  'delete_contact',
  'send_email',
  'create_calendar_event',
  'create_task',
  'update_task',
  'delete_task',
  'escalate',
  'reply_to_sender',
  'welcome_contact',
] as const;

const internals = ['write_file', 'edit_file', 'delete_file', 'set_focus'];

export const SPEC_TOOLS: ToolInfo[] = [
  ...reads.map((name) => ({ name, kind: 'read' as const })),
  ...SPEC_WRITE_TOOLS.map((name) => ({ name, kind: 'write' as const })),
  ...internals.map((name) => ({ name, kind: 'internal' as const })),
];
