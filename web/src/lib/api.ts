import type * as z from 'zod';
import type { InboxFilter } from '../../../shared/src/contracts/api';
import {
  apiError,
  auditResponse,
  conversationDetail,
  conversationStatusResponse,
  decisionConflict,
  decisionResponse,
  devSessionResponse,
  devTeamResponse,
  followUpResponse,
  instructionsResponse,
  listConversationsResponse,
  markReadResponse,
  meResponse,
  publicConfigResponse,
  searchResponse,
  vendorStatusResponse,
} from '../../../shared/src/contracts/api';
import type { LeadState, PendingAction } from '../../../shared/src/contracts/conversations';
import {
  deleteConversationResponse,
  deletionPreview,
  deletionsResponse,
} from '../../../shared/src/contracts/deletion';
import { leadStateResponse } from '../../../shared/src/contracts/lead';
import { memoryHistoryResponseSchema } from '../../../shared/src/contracts/memory';
import {
  notificationChoicesResponse,
  type saveNotificationChoicesRequest,
} from '../../../shared/src/contracts/notification-choices';
import { preferencesResponse, type SavePersonalPreferences } from '../../../shared/src/contracts/preferences';
import { type PlanItem, researchView } from '../../../shared/src/contracts/research';
import {
  deleteWorkspaceFileResponse,
  diffWorkspaceFileResponse,
  type TryPolicyRequest,
  tryPolicyResponse,
  type WriteWorkspaceFileRequest,
  workspaceFileResponse,
  workspaceFilesResponse,
  writeWorkspaceFileResponse,
} from '../../../shared/src/contracts/workspace-files';

/** An API answer that was not a success, with the server's code and sentence (shown to the person as is). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  /** The card as it stands when a decision lost the race (409), so the UI can show who decided. */
  get currentAction(): PendingAction | undefined {
    const parsed = decisionConflict.shape.error.shape.details.safeParse(this.details);
    return parsed.success ? parsed.data.action : undefined;
  }
}

export type GetToken = () => Promise<string | null>;

async function errorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = apiError.parse(JSON.parse(text));
    return new ApiError(res.status, body.error.code, body.error.message, body.error.details);
  } catch {
    return new ApiError(res.status, 'http_error', text.slice(0, 200) || `The server answered ${res.status}.`);
  }
}

/** Turns anything thrown (fetch failures, stream errors carrying a JSON body) into one sentence. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof TypeError) return 'Cannot reach the server. Check the connection and try again.';
  const message = e instanceof Error ? e.message : String(e);
  try {
    return apiError.parse(JSON.parse(message)).error.message;
  } catch {
    return message || 'Something went wrong.';
  }
}

/**
 * Every call the PWA makes, each response parsed with its shared contract. Sessions travel as a Bearer
 * token (never a cookie), fetched fresh per request so Clerk can rotate its short-lived tokens.
 */
export function createApi(getToken: GetToken) {
  async function request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    opts: { auth?: boolean } = {},
  ): Promise<z.infer<S>> {
    const headers: Record<string, string> = {};
    if (opts.auth !== false) {
      const token = await getToken();
      if (token) headers.authorization = `Bearer ${token}`;
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw await errorFrom(res);
    return schema.parse(await res.json());
  }
  const enc = encodeURIComponent;
  return {
    config: () => request('GET', '/api/config', publicConfigResponse, undefined, { auth: false }),
    devTeam: () => request('GET', '/api/dev/team', devTeamResponse, undefined, { auth: false }),
    devSession: (email: string) =>
      request('POST', '/api/dev/session', devSessionResponse, { email }, { auth: false }),
    me: () => request('GET', '/api/me', meResponse),
    conversations: (opts: { filter?: InboxFilter; cursor?: string } = {}) => {
      const q = new URLSearchParams();
      if (opts.filter && opts.filter !== 'all') q.set('filter', opts.filter);
      if (opts.cursor) q.set('cursor', opts.cursor);
      const qs = q.toString();
      return request('GET', `/api/conversations${qs ? `?${qs}` : ''}`, listConversationsResponse);
    },
    search: (query: string) => request('GET', `/api/search?q=${enc(query)}`, searchResponse),
    conversation: (id: string) => request('GET', `/api/conversations/${enc(id)}`, conversationDetail),
    /** `through`: the newest message's time the screen showed, so a message it never showed stays unread. */
    markRead: (id: string, through: string) =>
      request('POST', `/api/conversations/${enc(id)}/read`, markReadResponse, { through }),
    audit: (id: string) => request('GET', `/api/conversations/${enc(id)}/audit`, auditResponse),
    setStatus: (id: string, status: 'open' | 'done' | 'archived') =>
      request('POST', `/api/conversations/${enc(id)}/status`, conversationStatusResponse, { status }),
    /** Where a lead stands, said by a person (follow #20). */
    setLead: (id: string, state: LeadState) =>
      request('POST', `/api/conversations/${enc(id)}/lead`, leadStateResponse, { state }),
    /** The export file as the server wrote it (validated there): saved, not read, by the app. */
    exportConversation: async (id: string): Promise<Blob> => {
      const token = await getToken();
      const res = await fetch(`/api/admin/conversations/${enc(id)}/export`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      if (!res.ok) throw await errorFrom(res);
      return res.blob();
    },
    approve: (cid: string, aid: string, args?: Record<string, unknown>) =>
      request(
        'POST',
        `/api/conversations/${enc(cid)}/actions/${enc(aid)}/approve`,
        decisionResponse,
        args ? { args } : {},
      ),
    deny: (cid: string, aid: string, reason?: string, redraft?: boolean) =>
      request(
        'POST',
        `/api/conversations/${enc(cid)}/actions/${enc(aid)}/deny`,
        decisionResponse,
        reason ? { reason, ...(redraft !== undefined ? { redraft } : {}) } : {},
      ),
    redraft: (cid: string, aid: string, instruction: string) =>
      request('POST', `/api/conversations/${enc(cid)}/actions/${enc(aid)}/redraft`, decisionResponse, {
        instruction,
      }),
    claim: (cid: string, aid: string) =>
      request('POST', `/api/conversations/${enc(cid)}/actions/${enc(aid)}/claim`, decisionResponse, {}),
    release: (cid: string, aid: string) =>
      request('DELETE', `/api/conversations/${enc(cid)}/actions/${enc(aid)}/claim`, decisionResponse),
    answer: (
      cid: string,
      aid: string,
      answers: Array<{ recordAs: string; holds: boolean; value?: string }>,
    ) =>
      request('POST', `/api/conversations/${enc(cid)}/actions/${enc(aid)}/answer`, decisionResponse, {
        answers,
      }),
    cancelFollowUp: (cid: string, fid: string) =>
      request('POST', `/api/conversations/${enc(cid)}/followups/${enc(fid)}/cancel`, followUpResponse, {}),
    retry: (cid: string, aid: string) =>
      request('POST', `/api/conversations/${enc(cid)}/actions/${enc(aid)}/retry`, decisionResponse, {}),
    research: (id: string) => request('GET', `/api/research/${enc(id)}`, researchView),
    editResearchPlan: (id: string, plan: PlanItem[]) =>
      request('PUT', `/api/research/${enc(id)}/plan`, researchView, { plan }),
    approveResearch: (id: string, plan?: PlanItem[]) =>
      request('POST', `/api/research/${enc(id)}/approve`, researchView, plan ? { plan } : {}),
    replanResearch: (id: string, plan: PlanItem[], note?: string) =>
      request('POST', `/api/research/${enc(id)}/replan`, researchView, { plan, ...(note ? { note } : {}) }),
    cancelResearch: (id: string) => request('POST', `/api/research/${enc(id)}/cancel`, researchView, {}),
    memoryHistory: (limit = 20, path?: string) =>
      request(
        'GET',
        `/api/memory/history?limit=${limit}${path ? `&path=${enc(path)}` : ''}`,
        memoryHistoryResponseSchema,
      ),
    // Admin delete (issue 19): what would go, the delete itself (the id typed again), the tombstones.
    deletionPreview: (id: string) =>
      request('GET', `/api/admin/conversations/${enc(id)}/deletion`, deletionPreview),
    deleteConversation: (id: string, confirm: string) =>
      request('POST', `/api/admin/conversations/${enc(id)}/delete`, deleteConversationResponse, { confirm }),
    deletions: () => request('GET', '/api/admin/deletions', deletionsResponse),
    instructions: () => request('GET', '/api/admin/instructions', instructionsResponse),
    saveInstructions: (text: string) =>
      request('PUT', '/api/admin/instructions', instructionsResponse, { text }),
    vendorStatus: () => request('GET', '/api/admin/vendor-status', vendorStatusResponse),
    // The shared workspace-files component (DESIGN.md §5): per-path permissions come with every file.
    workspaceFiles: () => request('GET', '/api/workspace/files', workspaceFilesResponse),
    workspaceFile: (path: string) =>
      request('GET', `/api/workspace/file?path=${enc(path)}`, workspaceFileResponse),
    saveWorkspaceFile: (input: WriteWorkspaceFileRequest) =>
      request('PUT', '/api/workspace/file', writeWorkspaceFileResponse, input),
    deleteWorkspaceFile: (path: string) =>
      request('DELETE', `/api/workspace/file?path=${enc(path)}`, deleteWorkspaceFileResponse),
    diffWorkspaceFile: (path: string, text: string) =>
      request('POST', '/api/workspace/diff', diffWorkspaceFileResponse, { path, text }),
    tryPolicy: (input: TryPolicyRequest) =>
      request('POST', '/api/admin/policy/try', tryPolicyResponse, input),
    // Follow #20: a person's own preferences (settings → Preferences).
    preferences: () => request('GET', '/api/me/preferences', preferencesResponse),
    savePreferences: (patch: SavePersonalPreferences) =>
      request('PUT', '/api/me/preferences', preferencesResponse, patch),
    // Issue 19: what a person is pushed (settings → Notifications).
    notificationChoices: () => request('GET', '/api/me/notifications', notificationChoicesResponse),
    saveNotificationChoices: (choices: z.input<typeof saveNotificationChoicesRequest>) =>
      request('PUT', '/api/me/notifications', notificationChoicesResponse, choices),
  };
}
export type Api = ReturnType<typeof createApi>;
