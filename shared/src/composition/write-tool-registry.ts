import type { Config } from '../config';
import { clickUpTools } from '../tools/clickup';
import { contactDirectory } from '../tools/contact-directory';
import { escalate } from '../tools/escalation';
import { scheduleFollowUp } from '../tools/followups';
import { googleTools } from '../tools/google';
import { openPhoneTools, replyToSender } from '../tools/openphone';
import { proposePolicyChange } from '../tools/policy-change';
import { type BoundTool, bindAll, bindTool, ToolRegistry } from '../tools/registry';
import { welcomeContact } from '../tools/welcome-contact';
import { workspaceTools } from '../tools/workspace';

/** Only schemas are used from tools bound this way: the decision never runs a write. */
const schemaOnly = undefined as never;

/**
 * Every tool a card can carry, for validating a decision against the tool's own schema (issue 12 item 3:
 * send_email, create_calendar_event and the task tools were not checked at the API), plus the read tools
 * the policy's decision-time preconditions fetch (contacts). Read tools are bound for real when configured.
 */
export async function writeToolRegistry(
  c: Config,
): Promise<{ registry: ToolRegistry; readTools: Map<string, BoundTool> }> {
  const tools: BoundTool[] = [
    ...bindAll(openPhoneTools, schemaOnly),
    bindTool(replyToSender, schemaOnly),
    bindTool(welcomeContact, schemaOnly),
    bindTool(escalate, schemaOnly),
    bindTool(scheduleFollowUp, schemaOnly),
    ...bindAll(googleTools, schemaOnly),
    ...bindAll(clickUpTools, schemaOnly),
    ...bindAll(workspaceTools, schemaOnly),
    bindTool(proposePolicyChange, schemaOnly),
  ];
  const readTools = new Map<string, BoundTool>();
  if (c.OPENPHONE_API_KEY) {
    const { createOpenPhoneHttpGateway } = await import('../adapters/openphone-http');
    const sms = createOpenPhoneHttpGateway({ baseUrl: c.OPENPHONE_API_BASE, apiKey: c.OPENPHONE_API_KEY });
    const directory = contactDirectory(sms, c.ALLOWED_EMAIL_DOMAINS);
    const lines = { shared: c.OPENPHONE_SHARED_NUMBER ?? '', assistant: c.OPENPHONE_ASSISTANT_NUMBER ?? '' };
    for (const t of bindAll(openPhoneTools, { sms, directory, lines }))
      if (t.kind === 'read') readTools.set(t.name, t);
  }
  return { registry: new ToolRegistry(tools.filter((t) => t.kind !== 'read')), readTools };
}
