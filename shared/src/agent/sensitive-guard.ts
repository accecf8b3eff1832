import {
  parseSensitiveMarkers,
  SENSITIVE_MARKERS_PATH,
  sensitiveFindings,
  valuesInSensitiveFile,
} from '../domain/sensitive-content';
import type { Log } from '../ports/logger';
import type { ToolGuard } from '../ports/tool-guard';
import type { Workspace } from '../ports/workspace';

/** Writes that may go out by SMS without a card when the policy allows it: the answer to a team member. */
const UNREVIEWED_SMS_TOOLS = new Set(['reply_to_sender']);

/**
 * Wraps the guard: an SMS the policy would let skip approval becomes a card when its text carries a value
 * the team marked sensitive or anything secret-looking (SPEC §4, issue 12 item 9). A team member is known by
 * phone number only, which can be spoofed; a person confirms before a door code goes out.
 */
export function guardSensitiveReplies(inner: ToolGuard, markedValues: () => Promise<string[]>): ToolGuard {
  return {
    async check(call, env) {
      const verdict = await inner.check(call, env);
      if (verdict.decision !== 'allow' || !UNREVIEWED_SMS_TOOLS.has(call.tool)) return verdict;
      const text = typeof call.args.text === 'string' ? call.args.text : JSON.stringify(call.args);
      // Markers that cannot be read count as "sensitive": the answer waits for a person.
      const values = await markedValues().catch(() => undefined);
      const findings = values ? sensitiveFindings(text, values) : ['markers that could not be read'];
      if (findings.length === 0) return verdict;
      return {
        decision: 'require_approval',
        reason: `This SMS answer carries ${findings.join(' and ')}; a person approves it before it goes out (a sender's number can be spoofed).`,
        why: [...(verdict.why ?? []), `sensitive content: ${findings.join('; ')}`],
      };
    },
  };
}

/** The team's sensitive values from the memory workspace (team/sensitive.md and the files it marks). */
export function workspaceSensitiveValues(
  workspace: Workspace | undefined,
  log: Log,
): () => Promise<string[]> {
  return async () => {
    if (!workspace) return [];
    const text = await workspace.readFile(SENSITIVE_MARKERS_PATH).catch((e: { code?: string }) => {
      if (e?.code === 'not_found') return '';
      throw e;
    });
    const markers = parseSensitiveMarkers(text);
    const values = [...markers.values];
    for (const file of markers.files) {
      try {
        values.push(...valuesInSensitiveFile(await workspace.readFile(file)));
      } catch (e) {
        log.warn('sensitive.file_unreadable', { file, error: String(e).slice(0, 200) });
      }
    }
    return values;
  };
}
