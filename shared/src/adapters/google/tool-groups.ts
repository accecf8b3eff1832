import type { JWT } from 'google-auth-library';
import { AppError } from '../../errors';
import { createGoogleAuth, type GoogleAuthOptions } from './auth';

/**
 * Google access is split by tool group, one delegated token per group holding only that group's scopes: a
 * scope the Workspace admin did not delegate switches off its own group (with a message that names the
 * scope) and leaves the others working. These are the exact scopes to delegate (README, "Google").
 */
export const GOOGLE_TOOL_GROUPS = {
  gmail: { label: 'Gmail', scopes: ['https://www.googleapis.com/auth/gmail.modify'] },
  calendar: { label: 'Google Calendar', scopes: ['https://www.googleapis.com/auth/calendar.events'] },
  drive: {
    label: 'Google Drive, Docs and Sheets',
    scopes: [
      'https://www.googleapis.com/auth/drive.readonly',
      'https://www.googleapis.com/auth/documents.readonly',
      'https://www.googleapis.com/auth/spreadsheets.readonly',
    ],
  },
} as const;

export type GoogleToolGroup = keyof typeof GOOGLE_TOOL_GROUPS;

/** A group whose scopes are not delegated: not retryable, and worded for the agent to pass on. */
export class GoogleGroupDisabledError extends AppError {
  constructor(readonly group: GoogleToolGroup) {
    const g = GOOGLE_TOOL_GROUPS[group];
    super(
      `${g.label} is switched off: the Google Workspace admin has not delegated ${g.scopes.join(', ')} to the assistant's service account. Other Google tools still work. Tell the team; an admin adds the scope under Security → API controls → Domain-wide delegation.`,
      { code: 'integration_disabled', status: 503, retryable: false },
    );
  }
}

export interface GroupGate {
  group: GoogleToolGroup;
  label: string;
  auth: JWT;
  /** Resolves when the group's token can be had; throws GoogleGroupDisabledError when not delegated. */
  check(): Promise<void>;
}

/** Google's OAuth answer for an undelegated scope (the token endpoint's `error`). */
export function isUndelegated(e: unknown): boolean {
  const data = (e as { response?: { data?: { error?: unknown } } }).response?.data;
  const text = `${typeof data?.error === 'string' ? data.error : ''} ${(e as Error)?.message ?? ''}`;
  return /unauthorized_client|access_denied/.test(text);
}

/**
 * One JWT client for the group, and a gate in front of it. The token request is the probe (the library
 * caches the token, so a working group costs nothing extra); a refusal is remembered for `offForMs` so a
 * switched-off group does not ask Google on every call, then tried again in case the admin fixed it.
 */
export function groupGate(
  group: GoogleToolGroup,
  auth: Omit<GoogleAuthOptions, 'scopes'>,
  opts: { clock?: () => Date; offForMs?: number } = {},
): GroupGate {
  const jwt = createGoogleAuth({ ...auth, scopes: GOOGLE_TOOL_GROUPS[group].scopes });
  const clock = opts.clock ?? (() => new Date());
  const offForMs = opts.offForMs ?? 5 * 60_000;
  let offSince: number | undefined;
  return {
    group,
    label: GOOGLE_TOOL_GROUPS[group].label,
    auth: jwt,
    async check() {
      if (offSince !== undefined && clock().getTime() - offSince < offForMs)
        throw new GoogleGroupDisabledError(group);
      try {
        await jwt.getAccessToken();
        offSince = undefined;
      } catch (e) {
        if (!isUndelegated(e)) throw e;
        offSince = clock().getTime();
        throw new GoogleGroupDisabledError(group);
      }
    },
  };
}

/** The port with every method waiting for the gate first: a switched-off group fails fast and clearly. */
export function gated<T extends object>(port: T, gate: GroupGate): T {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await gate.check();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The three group gates of a configured Google integration (tools, admin status and the doctor use them). */
export function googleGroupGates(config: {
  GOOGLE_SERVICE_ACCOUNT_JSON?: string | undefined;
  GOOGLE_IMPERSONATE_USER?: string | undefined;
  GOOGLE_TOKEN_URL?: string | undefined;
}): Record<GoogleToolGroup, GroupGate> {
  const auth = {
    serviceAccount: config.GOOGLE_SERVICE_ACCOUNT_JSON ?? '',
    subject: config.GOOGLE_IMPERSONATE_USER ?? '',
    ...(config.GOOGLE_TOKEN_URL ? { tokenUrl: config.GOOGLE_TOKEN_URL } : {}),
  };
  return {
    gmail: groupGate('gmail', auth),
    calendar: groupGate('calendar', auth),
    drive: groupGate('drive', auth),
  };
}
