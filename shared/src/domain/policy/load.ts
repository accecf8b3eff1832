import type { Statement } from './ast';
import { RulebaseError, type RulebaseIssue } from './errors';
import { parseRulebaseText } from './parser';
import { compileRulebase, type Rulebase, type ToolInfo } from './rulebase';

/**
 * Parses several rulebase files (e.g. the memory workspace's `policy/*.rules`) as one rulebase: a rule in
 * one file may use predicates of another. Files are read in name order so errors and rule order are stable.
 * Every syntax and validation issue of every file is reported in one RulebaseError.
 */
export function loadRulebases(files: Record<string, string>, opts: { tools?: ToolInfo[] } = {}): Rulebase {
  const names = Object.keys(files).sort();
  const statements: Statement[] = [];
  const issues: RulebaseIssue[] = [];
  for (const name of names) {
    try {
      statements.push(...parseRulebaseText(files[name] ?? '', name));
    } catch (e) {
      if (!(e instanceof RulebaseError)) throw e;
      issues.push(...e.issues);
    }
  }
  if (issues.length > 0) throw new RulebaseError(issues);
  return compileRulebase(statements, { files: names, ...(opts.tools ? { tools: opts.tools } : {}) });
}

/** One file's text as a rulebase (tests, docs examples). */
export function loadRulebase(text: string, opts: { file?: string; tools?: ToolInfo[] } = {}): Rulebase {
  return loadRulebases({ [opts.file ?? 'rulebase.rules']: text }, opts.tools ? { tools: opts.tools } : {});
}
