import { AppError } from '../../errors';

export interface RulebaseIssue {
  file: string;
  line: number;
  column: number;
  message: string;
}

export function formatIssue(i: RulebaseIssue): string {
  return `${i.file}:${i.line}:${i.column}: ${i.message}`;
}

/**
 * A rulebase that cannot be parsed or is unsafe to run. Teams edit `policy/*.rules` by hand, so every issue
 * names the file, line and column; all issues found in one pass are reported together.
 */
export class RulebaseError extends AppError {
  readonly issues: RulebaseIssue[];
  readonly file: string;
  readonly line: number;
  readonly column: number;

  constructor(issues: RulebaseIssue[]) {
    const first = issues[0] ?? { file: '(rulebase)', line: 1, column: 1, message: 'invalid rulebase' };
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(`${formatIssue(first)}${more}`, { code: 'rulebase_invalid', status: 400, details: { issues } });
    this.issues = issues;
    this.file = first.file;
    this.line = first.line;
    this.column = first.column;
  }
}

/** A query, answer or fact given to the engine at run time that does not fit the rulebase. */
export class PolicyQueryError extends AppError {
  constructor(message: string, details?: unknown) {
    super(message, { code: 'policy_query_invalid', status: 400, details });
  }
}

/** `set_focus` refused: undeclared or fixed context variable, or a value its `where` clause does not prove. */
export class FocusRejectedError extends AppError {
  constructor(message: string, details?: unknown) {
    super(message, { code: 'focus_rejected', status: 422, details });
  }
}

/** The engine was wired wrongly (a guard used for another conversation, an unknown timezone). */
export class PolicyConfigError extends AppError {
  constructor(message: string) {
    super(message, { code: 'policy_misconfigured', status: 500 });
  }
}
