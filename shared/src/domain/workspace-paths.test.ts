import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors';
import {
  assertNoSymlinks,
  assertWorkspaceFileSize,
  normalizeWorkspacePath,
  WORKSPACE_LIMITS,
  WorkspacePathError,
} from './workspace-paths';

function problemOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof WorkspacePathError ? error.problem : `unexpected ${String(error)}`;
  }
  return undefined;
}

describe('normalizeWorkspacePath', () => {
  it.each([
    ['MEMORY.md', 'MEMORY.md'],
    ['./areas//maintenance.md', 'areas/maintenance.md'],
    ['daily_notes/2025-03-04_heater.md', 'daily_notes/2025-03-04_heater.md'],
    ['skills/triage/SKILL.md', 'skills/triage/SKILL.md'],
    ['data/contacts.JSON', 'data/contacts.JSON'],
    ['notes.txt', 'notes.txt'],
    ['policy/default.rules', 'policy/default.rules'],
  ])('accepts %j as %j', (input, expected) => {
    expect(normalizeWorkspacePath(input)).toBe(expected);
  });

  it.each([
    ['../MEMORY.md', 'parent_segment'],
    ['areas/../../etc/passwd.md', 'parent_segment'],
    ['areas/..', 'parent_segment'],
    ['/etc/passwd.md', 'absolute'],
    ['C:/notes.md', 'absolute'],
    ['~/notes.md', 'absolute'],
    ['.git/config', 'git_dir'],
    ['.git', 'git_dir'],
    ['areas/.Git/x.md', 'git_dir'],
    ['areas\\x.md', 'bad_character'],
    ['a\u0000.md', 'bad_character'],
    ['a\n.md', 'bad_character'],
    ['script.sh', 'bad_suffix'],
    ['README', 'bad_suffix'],
    ['image.md.png', 'bad_suffix'],
    ['areas/default.rules', 'bad_suffix'],
    ['', 'empty'],
    ['./', 'empty'],
    [`${'a/'.repeat(9)}x.md`, 'too_deep'],
    [`${'a'.repeat(WORKSPACE_LIMITS.maxPathChars)}.md`, 'too_long'],
  ])('refuses %j (%s)', (input, problem) => {
    expect(problemOf(() => normalizeWorkspacePath(input))).toBe(problem);
  });

  it('gives messages the agent can act on, as ValidationErrors (400, not retryable)', () => {
    const error = (() => {
      try {
        normalizeWorkspacePath('notes/todo.sh');
      } catch (e) {
        return e as WorkspacePathError;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error?.status).toBe(400);
    expect(error?.retryable).toBe(false);
    expect(error?.message).toContain('only holds .md, .txt, .json');
    expect(error?.message).toContain('"todo.md"');
    expect(error?.details).toEqual({ problem: 'bad_suffix', path: 'notes/todo.sh' });
  });

  it('treats folders without a suffix rule, with "" as the root', () => {
    expect(normalizeWorkspacePath('', 'dir')).toBe('');
    expect(normalizeWorkspacePath('areas/', 'dir')).toBe('areas');
    expect(problemOf(() => normalizeWorkspacePath('../', 'dir'))).toBe('parent_segment');
  });
});

describe('assertWorkspaceFileSize', () => {
  it('allows up to the cap and refuses one byte more', () => {
    expect(() => assertWorkspaceFileSize('a.md', WORKSPACE_LIMITS.maxFileBytes)).not.toThrow();
    expect(problemOf(() => assertWorkspaceFileSize('a.md', WORKSPACE_LIMITS.maxFileBytes + 1))).toBe(
      'too_large',
    );
  });
});

describe('assertNoSymlinks', () => {
  it('checks every folder on the way and the file itself', async () => {
    const probed: string[] = [];
    await assertNoSymlinks('areas/sub/x.md', async (rel) => {
      probed.push(rel);
      return false;
    });
    expect(probed).toEqual(['areas', 'areas/sub', 'areas/sub/x.md']);
    await expect(
      assertNoSymlinks('areas/sub/x.md', async (rel) => rel === 'areas/sub'),
    ).rejects.toMatchObject({
      problem: 'symlink',
      message: expect.stringContaining('"areas/sub" is a symbolic link'),
    });
  });
});
