import { describe, expect, it } from 'vitest';
import {
  assertAgentMayWrite,
  isProtectedPath,
  ProtectedPathError,
  protectedWriteVerdict,
} from './protected-paths';

describe('protected paths', () => {
  it.each([
    'policy/autonomy.rules',
    'policy',
    './policy//x.rules',
    'POLICY/x.rules',
    'team/sensitive.md',
    'skills/a/SKILL.md',
    'lessons/x.md',
    'instructions/x.md',
    'instructions.md',
    '/policy/x.rules',
    '..\\policy\\x.rules',
  ])('%s is protected', (path) => {
    expect(isProtectedPath(path)).toBe(true);
    expect(() => assertAgentMayWrite(path)).toThrow(ProtectedPathError);
  });

  it.each([
    'MEMORY.md',
    'areas/policy.md',
    'areas/policy/x.md',
    'policyx/a.md',
    'teams.md',
    'daily_notes/team.md',
  ])('%s is the assistant’s own note', (path) => expect(isProtectedPath(path)).toBe(false));

  it('refuses a workspace writer whatever kind it claims; other tools are not its business', () => {
    for (const kind of ['read', 'write', 'internal'] as const) {
      const call = {
        tool: 'write_file',
        kind,
        args: { path: 'policy/a.rules' },
        origin: 'model' as const,
        conversationId: 'c',
      };
      expect(protectedWriteVerdict(call)?.decision).toBe('deny');
    }
    const missing = {
      tool: 'delete_file',
      kind: 'internal' as const,
      args: {},
      origin: 'model' as const,
      conversationId: 'c',
    };
    expect(protectedWriteVerdict(missing)?.decision).toBe('deny');
    const other = {
      tool: 'read_file',
      kind: 'read' as const,
      args: { path: 'policy/a.rules' },
      origin: 'model' as const,
      conversationId: 'c',
    };
    expect(protectedWriteVerdict(other)).toBeUndefined();
  });
});
