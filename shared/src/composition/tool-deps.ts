import type { DynamoTable } from '../adapters/dynamo/base';
import { dynamoConversationArchive } from '../adapters/dynamo/conversation-archive';
import { dynamoPageBudgetStore } from '../adapters/dynamo/page-budget-store';
import type { Config } from '../config';
import type { Calendar } from '../ports/calendar';
import type { Drive } from '../ports/drive';
import type { Mailbox } from '../ports/mailbox';
import type { TaskBoard } from '../ports/task-board';
import type { ClickUpToolDeps } from '../tools/clickup';
import type { ContactDirectory } from '../tools/contact-directory';
import { ConversationCorpus, type DbSearchToolDeps, type SearchCaps } from '../tools/db-search';
import type { GoogleToolDeps } from '../tools/google';
import type { PageBudgetDeps } from '../tools/page-budget';
import {
  parseWebAccess,
  type WebConfig,
  type WebServerTool,
  type WebServerToolOptions,
  type WebToolDeps,
  webServerTools,
} from '../tools/web';
import type { Core } from './core';

import { lazyPort } from './lazy-port';

export { lazyPort };

/**
 * The tools' dependencies, built from config here in the composition root (issue 14: nothing outside it
 * builds adapters; the tools see only ports). Each is undefined when its integration is not configured, so
 * its tools are simply not registered.
 */

export type GoogleConfig = Pick<
  Config,
  | 'GOOGLE_SERVICE_ACCOUNT_JSON'
  | 'GOOGLE_IMPERSONATE_USER'
  | 'GOOGLE_API_BASE'
  | 'GOOGLE_TOKEN_URL'
  | 'TEAM_TIMEZONE'
  | 'TEAM_NAME'
  | 'EMAIL_BODY_LIMIT'
> &
  Partial<Pick<Config, 'PDF_TEXT_FUNCTION' | 'AWS_REGION'>>;

/**
 * One service account (domain-wide delegation to the shared inbox) for Gmail, Calendar and Drive, one token
 * per tool group with only that group's scopes (an undelegated scope switches off its group only).
 *
 * The Google client libraries (about 700 KB with their auth stack) are imported on a tool's first call, not
 * at cold start (issue 16: the worker's init); a malformed service account is reported then, by the tool.
 */
export function buildGoogleToolDeps(config: GoogleConfig): GoogleToolDeps | undefined {
  if (!config.GOOGLE_SERVICE_ACCOUNT_JSON || !config.GOOGLE_IMPERSONATE_USER) return undefined;
  const rootUrl = config.GOOGLE_API_BASE ? `${config.GOOGLE_API_BASE.replace(/\/$/, '')}/` : undefined;
  const root = rootUrl ? { rootUrl } : {};
  const address = config.GOOGLE_IMPERSONATE_USER;
  let groups: Promise<typeof import('../adapters/google/tool-groups')> | undefined;
  const gates = async () => {
    groups ??= import('../adapters/google/tool-groups');
    const g = await groups;
    return { g, gates: g.googleGroupGates(config) };
  };
  return {
    mailbox: lazyPort<Mailbox>(async () => {
      const [{ g, gates: all }, { createGmailMailbox }] = await Promise.all([
        gates(),
        import('../adapters/google/gmail-mailbox'),
      ]);
      const mailbox = createGmailMailbox({
        auth: all.gmail.auth,
        ...root,
        address,
        fromName: config.TEAM_NAME,
        bodyLimit: config.EMAIL_BODY_LIMIT,
      });
      return g.gated(mailbox, all.gmail);
    }),
    calendar: lazyPort<Calendar>(async () => {
      const [{ g, gates: all }, { createGoogleCalendar }] = await Promise.all([
        gates(),
        import('../adapters/google/google-calendar'),
      ]);
      const calendar = createGoogleCalendar({
        auth: all.calendar.auth,
        ...root,
        timezone: config.TEAM_TIMEZONE,
      });
      return g.gated(calendar, all.calendar);
    }),
    drive: lazyPort<Drive>(async () => {
      const [{ g, gates: all }, { createGoogleDrive }, pdfText] = await Promise.all([
        gates(),
        import('../adapters/google/google-drive'),
        pdfTextReader(config),
      ]);
      return g.gated(createGoogleDrive({ auth: all.drive.auth, ...root, ...pdfText }), all.drive);
    }),
  };
}

/** On AWS PDFs are read by the pdf-text function (pdf.js is not in this artifact); elsewhere in process. */
async function pdfTextReader(config: GoogleConfig) {
  if (!config.PDF_TEXT_FUNCTION) return {};
  const { createLambdaPdfText } = await import('../adapters/pdf-text-lambda');
  return {
    pdfText: createLambdaPdfText({
      functionName: config.PDF_TEXT_FUNCTION,
      ...(config.AWS_REGION ? { region: config.AWS_REGION } : {}),
    }),
  };
}

export type ClickUpConfig = Pick<Config, 'CLICKUP_API_BASE' | 'CLICKUP_API_TOKEN' | 'CLICKUP_TEAM_ID'> &
  Partial<Pick<Config, 'TEAM_TIMEZONE'>>;

export function buildClickUpToolDeps(config: ClickUpConfig): ClickUpToolDeps | undefined {
  if (!config.CLICKUP_API_TOKEN || !config.CLICKUP_TEAM_ID) return undefined;
  const options = {
    baseUrl: config.CLICKUP_API_BASE,
    token: config.CLICKUP_API_TOKEN,
    teamId: config.CLICKUP_TEAM_ID,
    ...(config.TEAM_TIMEZONE ? { timezone: config.TEAM_TIMEZONE } : {}),
  };
  // The client and its response contracts (~160 zod schemas) load on the first ClickUp call (issue 16).
  // Every TaskBoard method is async, and the ClickUp board has the optional `listMembers` too.
  return {
    board: lazyPort<TaskBoard>(async () =>
      (await import('../adapters/clickup-http')).createClickUpTaskBoard(options),
    ),
  };
}

/** The corpus lives as long as the deps (one per cold start), so warm calls only read what changed. */
export function buildDbSearchToolDeps(
  config: Pick<Config, 'TEAM_TIMEZONE'>,
  table: DynamoTable,
  caps?: Partial<SearchCaps>,
): DbSearchToolDeps {
  return {
    corpus: new ConversationCorpus(dynamoConversationArchive(table), caps),
    timezone: config.TEAM_TIMEZONE,
  };
}

/**
 * Claude mode with an allow-list → server tools for the model (and no ordinary tools of the same names, which
 * the API would reject as duplicates). Otherwise → the ordinary tools with the reason.
 */
export function buildWebToolDeps(
  config: WebConfig,
  opts?: WebServerToolOptions,
): { serverTools: WebServerTool[]; fallback?: WebToolDeps } {
  const access = parseWebAccess(config.WEB_ALLOWED_DOMAINS);
  if (!config.ANTHROPIC_API_KEY)
    return {
      serverTools: [],
      fallback: { reason: 'the assistant is running without Claude (rules mode), which has no web access.' },
    };
  if (access.mode === 'off')
    return {
      serverTools: [],
      fallback: { reason: 'web access is switched off for this team (WEB_ALLOWED_DOMAINS is empty).' },
    };
  return { serverTools: webServerTools(access, opts) };
}

/** The escalate tool's budget from the composed core: the DynamoDB store, the settings, and the lookups. */
export function pageBudgetDeps(core: Core, directory: ContactDirectory | undefined): PageBudgetDeps {
  const c = core.config;
  return {
    store: dynamoPageBudgetStore(core.table),
    settings: {
      perHour: c.PAGE_BUDGET_PER_HOUR,
      perSenderPerHour: c.PAGES_PER_SENDER_PER_HOUR,
      unknownWindowMinutes: c.UNKNOWN_SENDER_PAGE_WINDOW_MINUTES,
    },
    sender: async (ctx) => {
      const conv = await core.conversations.get(ctx.conversationId);
      return conv?.source === 'sms' ? conv.contact?.phone : undefined;
    },
    isKnown: async (phone) => Boolean(directory && (await directory.byPhone(phone))),
    decidedBy: async (ctx) =>
      ctx.actionId ? (await core.actions.get(ctx.conversationId, ctx.actionId))?.decidedBy : undefined,
    alertTeam: async (ctx, title, body) => {
      const at = core.clock().toISOString();
      await core.conversations.appendMessage({
        id: `m_page_budget_${ctx.actionId ?? ctx.runId}`,
        conversationId: ctx.conversationId,
        role: 'system',
        text: `${title}. ${body}`,
        createdAt: at,
        author: { kind: 'system', name: 'Switchboard' },
        runId: ctx.runId,
        ...(ctx.actionId ? { actionId: ctx.actionId } : {}),
      });
      await core.queue.send({
        id: `notify_page_budget_${ctx.actionId ?? ctx.runId}`,
        type: 'notify',
        correlationId: `conv:${ctx.conversationId}`,
        key: `notify:${ctx.conversationId}`,
        occurredAt: at,
        payload: { kind: 'alert', conversationId: ctx.conversationId, title, body: body.slice(0, 500) },
      });
    },
  };
}
