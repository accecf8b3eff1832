import type { ActionStatus } from '../../contracts/conversations';
import type { ActionPatch } from '../../ports/action-store';

/**
 * The one conditional update of a card, for the action store's own write and a turn's transaction alike:
 * status and version move only while the status is one of `from`; a patched field is set, a null one removed.
 */
export function actionTransitionUpdate(from: ActionStatus[], to: ActionStatus, patch: ActionPatch) {
  const names: Record<string, string> = { '#status': 'status', '#version': 'version' };
  const values: Record<string, unknown> = { ':to': to, ':one': 1 };
  const sets = ['#status = :to', '#version = #version + :one'];
  const removes: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (['id', 'conversationId', 'status', 'version'].includes(k) || v === undefined) continue;
    names[`#${k}`] = k;
    if (v === null) {
      removes.push(`#${k}`);
      continue;
    }
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  const fromKeys = from.map((s, i) => {
    values[`:from${i}`] = s;
    return `:from${i}`;
  });
  return {
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: `attribute_exists(sk) AND #status IN (${fromKeys.join(', ')})`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
