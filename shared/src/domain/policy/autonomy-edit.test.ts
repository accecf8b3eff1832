import { describe, expect, test } from 'vitest';
import { allowWithoutApprovalEdit, autonomyStatements, requireApprovalEdit } from './autonomy-edit';
import { AUTONOMY_RULES, DEFAULT_RULEBASE_FILES } from './defaults';
import { loadRulebases } from './load';

const FILE = 'policy/autonomy.rules';
const loads = (text: string) => loadRulebases({ ...DEFAULT_RULEBASE_FILES, [FILE]: text });

describe('policy edits rules mode proposes', () => {
  test('finds the statements of one tool exactly, multi-line ones included, never the commented example', () => {
    const text = `${AUTONOMY_RULES}\nautonomous escalate\n  when team_setting(on_call_direct, true).\n`;
    const found = autonomyStatements(text, FILE, 'escalate');
    expect(found).toHaveLength(2);
    for (const f of found) expect(text.slice(f.start, f.end)).toMatch(/^autonomous escalate[\s\S]*\.$/);
    expect(autonomyStatements(text, FILE, 'send_message')).toEqual([]);
  });

  test('require approval: the statements are commented out under a note, and the rulebase still loads', () => {
    const edit = requireApprovalEdit(AUTONOMY_RULES, FILE, 'escalate', 'Proposed in chat by Alex');
    expect(edit.removed).toEqual([
      'autonomous escalate when team_setting(escalation_requires_approval, false).',
    ]);
    expect(edit.text).toContain(
      '% Proposed in chat by Alex\n% autonomous escalate when team_setting(escalation_requires_approval, false).',
    );
    expect(autonomyStatements(edit.text, FILE, 'escalate')).toEqual([]);
    // Nothing else changed: the other tool's rule is still in force.
    expect(autonomyStatements(edit.text, FILE, 'reply_to_sender')).toHaveLength(1);
    expect(() => loads(edit.text)).not.toThrow();
  });

  test('a statement sharing its line with another is moved to its own line first', () => {
    const text = 'autonomous create_task when true. autonomous escalate when true.\n';
    const edit = requireApprovalEdit(text, FILE, 'escalate', 'n');
    expect(edit.text).toBe('autonomous create_task when true. \n% n\n% autonomous escalate when true.\n');
  });

  test('nothing to remove: the text is unchanged', () => {
    expect(requireApprovalEdit(AUTONOMY_RULES, FILE, 'send_email', 'n')).toEqual({
      text: AUTONOMY_RULES,
      removed: [],
    });
  });

  test('allow without approval: one statement appended with its note; the same one twice is "already"', () => {
    const stmt = 'autonomous send_message(To, Text) when internal_contact(To).';
    const edit = allowWithoutApprovalEdit(AUTONOMY_RULES, FILE, stmt, 'Proposed in chat by Alex');
    expect(edit.already).toBe(false);
    expect(edit.text.endsWith(`\n\n% Proposed in chat by Alex\n${stmt}\n`)).toBe(true);
    expect(() => loads(edit.text)).not.toThrow();
    expect(allowWithoutApprovalEdit(edit.text, FILE, stmt, 'again').already).toBe(true);
  });
});
