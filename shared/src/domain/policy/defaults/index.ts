import { loadRulebases } from '../load';
import type { Rulebase, ToolInfo } from '../rulebase';
import { AUTONOMY_RULES } from './autonomy';
import { LEADS_RULES } from './leads';
import { MESSAGING_RULES } from './messaging';

/**
 * The rulebases Switchboard ships, keyed by their path in the memory workspace. The workspace writes them
 * to `policy/*.rules` on first start; from then on the team's edited copies are loaded instead (loadRulebases).
 * They are TS strings so esbuild bundles them into the worker without file reads.
 */
export const DEFAULT_RULEBASE_FILES: Readonly<Record<string, string>> = {
  'policy/autonomy.rules': AUTONOMY_RULES,
  'policy/leads.rules': LEADS_RULES,
  'policy/messaging.rules': MESSAGING_RULES,
};

export function loadDefaultRulebase(opts: { tools?: ToolInfo[] } = {}): Rulebase {
  return loadRulebases({ ...DEFAULT_RULEBASE_FILES }, opts);
}

export { AUTONOMY_RULES, LEADS_RULES, MESSAGING_RULES };
