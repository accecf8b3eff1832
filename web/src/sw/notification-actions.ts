/// <reference lib="webworker" />
import type { PushNotificationPayload } from '../../../shared/src/contracts/push';

/**
 * Approve / Deny on an approval notification (cards #18), where the platform has notification actions
 * (Chromium on Android and desktop; iOS has none, so there the tap opens the card as before). The push
 * carries a signed, single-use action token for this card and this device's owner; the worker posts it to
 * the card's `…/by-token` route (the service worker has no session) and replaces the notification with the
 * outcome: approved, denied, already decided by someone else, or "open the card".
 */

type Decision = 'approve' | 'deny';

export interface ActionData {
  conversationId: string;
  actionId: string;
  actionToken: string;
  url: string;
}

/** The buttons a notification shows: only for an approval that carries a token. */
export function notificationActions(p: PushNotificationPayload): Array<{ action: Decision; title: string }> {
  if (p.kind !== 'approval' || !p.actionId || !p.actionToken) return [];
  return [
    { action: 'approve', title: 'Approve' },
    { action: 'deny', title: 'Deny' },
  ];
}

function actionData(data: unknown): ActionData | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const ok = ['conversationId', 'actionId', 'actionToken', 'url'].every((k) => typeof d[k] === 'string');
  return ok ? (d as unknown as ActionData) : undefined;
}

/**
 * Handles a click on Approve / Deny; false for a plain tap (or a notification without a token), which the
 * caller handles by opening the conversation.
 */
export function handleNotificationAction(sw: ServiceWorkerGlobalScope, event: NotificationEvent): boolean {
  const decision = event.action === 'approve' || event.action === 'deny' ? event.action : undefined;
  const data = actionData(event.notification.data);
  if (!decision || !data) return false;
  event.notification.close();
  const tag = event.notification.tag;
  const work = decide(data, decision).then((outcome) =>
    sw.registration.showNotification(outcome.title, {
      body: outcome.body,
      icon: '/icons/icon-192.png',
      ...(tag ? { tag } : {}),
      data: { url: data.url, conversationId: data.conversationId, kind: 'outcome' },
    }),
  );
  event.waitUntil(work);
  return true;
}

interface Outcome {
  title: string;
  body: string;
}

async function decide(data: ActionData, decision: Decision): Promise<Outcome> {
  const path = `/api/conversations/${encodeURIComponent(data.conversationId)}/actions/${encodeURIComponent(data.actionId)}/by-token`;
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: data.actionToken, decision }),
    });
  } catch {
    return { title: 'Not decided — offline', body: 'Open the card to decide when you are back online.' };
  }
  const json = (await res.json().catch(() => ({}))) as {
    error?: { message?: string; details?: { action?: { status?: string; decidedByName?: string } } };
  };
  if (res.ok) {
    return decision === 'approve'
      ? { title: 'Approved ✓', body: 'Sending now. Tap to see the conversation.' }
      : { title: 'Denied', body: 'Nothing was sent. Tap to add a reason or redraft.' };
  }
  if (res.status === 409) {
    const a = json.error?.details?.action;
    const who = a?.decidedByName ? ` by ${a.decidedByName}` : '';
    const what = a?.status ? `${a.status.toLowerCase()}${who}` : 'decided';
    return { title: 'Already decided', body: `This card was already ${what}. Tap to see it.` };
  }
  return {
    title: 'Not decided',
    body: `${json.error?.message ?? 'The action could not be used.'} Tap to open the card.`,
  };
}
