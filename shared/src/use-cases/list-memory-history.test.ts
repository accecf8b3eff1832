import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../../../scripts/emulators/git-server';
import { openGitWorkspace } from '../adapters/git-workspace';
import type { MemoryCommit } from '../contracts/memory';
import { ValidationError } from '../errors';
import type { Workspace } from '../ports/workspace';
import { listMemoryHistory } from './list-memory-history';

const commit = (n: number, committedAt: string): MemoryCommit => ({
  oid: n.toString(16).padStart(40, '0'),
  message: `memory: note ${n}`,
  author: 'Switchboard',
  committedAt,
  merge: false,
  files: [{ path: 'MEMORY.md', change: 'modified', patch: `+note ${n}\n`, patchTruncated: false }],
});

function fakeWorkspace(commits: MemoryCommit[]) {
  const calls: string[] = [];
  const workspace: Pick<Workspace, 'sync' | 'history'> = {
    async sync() {
      calls.push('sync');
      return { outcome: 'up-to-date', head: '', conflicts: [], ms: 0 };
    },
    async history(limit) {
      calls.push(`history(${limit})`);
      return commits.slice(0, limit);
    },
  };
  return { workspace, calls };
}

describe('listMemoryHistory', () => {
  it('pulls first, then returns the newest commits since the given time', async () => {
    const { workspace, calls } = fakeWorkspace([
      commit(3, '2025-03-07T10:00:00.000Z'),
      commit(2, '2025-03-03T10:00:00.000Z'),
      commit(1, '2025-02-20T10:00:00.000Z'),
    ]);
    const result = await listMemoryHistory({ workspace }, { since: '2025-03-01T00:00:00Z' });
    expect(calls).toEqual(['sync', 'history(20)']);
    expect(result.commits.map((c) => c.message)).toEqual(['memory: note 3', 'memory: note 2']);
  });

  it('refuses a bad limit or date with a ValidationError naming the field', async () => {
    const { workspace } = fakeWorkspace([]);
    await expect(listMemoryHistory({ workspace }, { limit: 500 })).rejects.toThrow(/limit/);
    await expect(listMemoryHistory({ workspace }, { since: 'last week' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  describe('against a real workspace', () => {
    let server: GitServer;
    let work: string;
    beforeAll(async () => {
      server = await startGitServer();
      work = await mkdtemp(join(tmpdir(), 'memory-history-'));
    });
    afterAll(async () => {
      await server?.stop();
      await rm(work, { recursive: true, force: true });
    });

    it('shows what the assistant learned, with diffs, including notes another worker pushed', async () => {
      const url = await server.createBareRepo('history');
      const reader = await openGitWorkspace({ dir: join(work, 'reader'), url });
      const writer = await openGitWorkspace({ dir: join(work, 'writer'), url });
      await writer.editFile('MEMORY.md', '- (none yet)', '- David Kim pays rent on the 3rd.');
      await writer.commitAndPush({ conversationId: 'conv_42', summary: 'remembered when David pays rent' });

      const { commits } = await listMemoryHistory({ workspace: reader }, { limit: 5 });
      expect(commits[0]?.message).toContain('memory: remembered when David pays rent');
      expect(commits[0]?.message).toContain('Conversation: conv_42');
      expect(commits[0]?.files).toEqual([
        expect.objectContaining({
          path: 'MEMORY.md',
          change: 'modified',
          patch: expect.stringContaining('+- David Kim pays rent on the 3rd.'),
        }),
      ]);
      expect(commits.at(-1)?.message).toContain('seed the memory workspace');
      expect(commits.at(-1)?.files.map((f) => f.change)).toEqual(commits.at(-1)?.files.map(() => 'added'));
    });
  });
});
