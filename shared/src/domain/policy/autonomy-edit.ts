import type { AutonomousStmt } from './ast';
import { parseRulebaseText } from './parser';

/**
 * The two policy edits rules mode can propose from a chat request (issue 12): make a write tool wait for a
 * person again, or let one run without approval. Pure text edits of one policy file, so the admin's card shows
 * exactly these lines in its diff; the executor still loads the whole rulebase before it commits anything.
 */

/** The `autonomous` statements of one file for `tool`, each with where it starts and ends in the text. */
export function autonomyStatements(
  text: string,
  file: string,
  tool: string,
): Array<{ stmt: AutonomousStmt; start: number; end: number }> {
  const offsets = lineOffsets(text);
  return parseRulebaseText(text, file)
    .filter((s): s is AutonomousStmt => s.kind === 'autonomous' && s.tool === tool)
    .map((stmt) => {
      // `pos` is the `autonomous` keyword (1-based line and column); `text` is what follows it, verbatim.
      const start = (offsets[stmt.pos.line - 1] ?? 0) + stmt.pos.column - 1;
      const end = text.indexOf(stmt.text, start) + stmt.text.length;
      return { stmt, start, end };
    });
}

function lineOffsets(text: string): number[] {
  const out = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') out.push(i + 1);
  return out;
}

/**
 * Every `autonomous <tool> …` statement of the file commented out (kept, so the admin sees what it was and can
 * restore it), under one note saying who asked. Returns the new text and the statements removed (none: the
 * file never let the tool skip approval, and the text is unchanged).
 */
export function requireApprovalEdit(
  text: string,
  file: string,
  tool: string,
  note: string,
): { text: string; removed: string[] } {
  const found = autonomyStatements(text, file, tool);
  if (!found.length) return { text, removed: [] };
  let out = text;
  // Where the first statement's commented block begins, for the note (set by the loop's last turn).
  let blockStart = 0;
  // From the last to the first, so earlier offsets stay valid.
  for (const { start, end } of [...found].reverse()) {
    const lineStart = out.lastIndexOf('\n', start - 1) + 1;
    const before = out.slice(lineStart, start);
    const stmt = out.slice(start, end);
    const commented = stmt
      .split('\n')
      .map((l) => `% ${l}`)
      .join('\n');
    // A statement sharing its line with another one is moved to its own line before it is commented out.
    const lead = before.trim() ? `${before}\n` : before;
    out = `${out.slice(0, lineStart)}${lead}${commented}${out.slice(end)}`;
    blockStart = lineStart + lead.length;
  }
  out = `${out.slice(0, blockStart)}% ${note}\n${out.slice(blockStart)}`;
  return { text: out, removed: found.map((f) => `autonomous ${f.stmt.text}`) };
}

/** One `autonomous` statement appended with its note; `already` when the file holds the same statement. */
export function allowWithoutApprovalEdit(
  text: string,
  file: string,
  statement: string,
  note: string,
): { text: string; already: boolean } {
  const tool = statement.replace(/^autonomous\s+/, '').match(/^[a-z_][a-z0-9_]*/)?.[0] ?? '';
  const same = autonomyStatements(text, file, tool).some(
    (f) => squash(`autonomous ${f.stmt.text}`) === squash(statement),
  );
  if (same) return { text, already: true };
  return { text: `${text.replace(/\s*$/, '')}\n\n% ${note}\n${statement}\n`, already: false };
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
