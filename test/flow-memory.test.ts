import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { openGitWorkspace } from '../shared/src/adapters/git-workspace';
import { loadMemoryContext } from '../shared/src/agent/memory-context';
import { getCore } from '../shared/src/composition/core';
import { postChatMessage } from '../shared/src/use-cases/post-chat-message';

/**
 * Issue 5's "done when" on the local stack: telling the assistant (rules mode) "remember that …" changes
 * MEMORY.md, the change is a commit on the git remote, and the next run's instructions include it.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

test('"remember that …" becomes a pushed commit and part of the next run\'s context', async () => {
  const core = await getCore('test-memory');
  const fact = 'the boiler at 7 Birch Rd is serviced every October';
  const { conversation } = await postChatMessage(core, {
    text: `remember that ${fact}`,
    user: { id: 'u_sam', email: 'sam@oakproperties.example', name: 'Sam Chen' },
  });
  const deadline = Date.now() + 40_000;
  let reply: string | undefined;
  while (Date.now() < deadline && !reply) {
    const messages = await core.conversations.listMessages(conversation.id);
    reply = messages.find((m) => m.role === 'assistant')?.text;
    if (!reply) await new Promise((r) => setTimeout(r, 200));
  }
  expect(reply).toMatch(/^Noted/);

  const url = stack.env.MEMORY_GIT_URL as string;
  // The reply is written before the turn's commit is pushed (the push ends the turn), so wait for it.
  const git = promisify(execFile);
  let clone = '';
  for (const until = Date.now() + 30_000; ; ) {
    clone = mkdtempSync(join(tmpdir(), 'memory-check-'));
    // Async on purpose: the git server runs in this process, so a blocking child would deadlock it.
    await git('git', ['clone', '--quiet', url, clone]);
    if (readFileSync(join(clone, 'MEMORY.md'), 'utf8').includes(fact) || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  expect(readFileSync(join(clone, 'MEMORY.md'), 'utf8')).toContain(fact);
  const log = (await git('git', ['-C', clone, 'log', '--format=%an|%B', '-n', '5'])).stdout;
  expect(log).toContain('Switchboard|');
  expect(log).toContain(conversation.id);

  const other = await openGitWorkspace({ dir: mkdtempSync(join(tmpdir(), 'memory-next-')), url });
  expect((await loadMemoryContext(other)).text).toContain(fact);
}, 90_000);
