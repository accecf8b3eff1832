import { beforeAll, describe, expect, test } from 'vitest';
import { freshTable } from '../../../test/helpers';
import { dynamoActionStore } from '../adapters/dynamo/action-store';
import { dynamoAuditLog } from '../adapters/dynamo/audit-log';
import { dynamoConversationStore } from '../adapters/dynamo/conversation-store';
import { DynamoFactStore } from '../adapters/dynamo/fact-store';
import { dynamoRunStore } from '../adapters/dynamo/run-store';
import type { PendingAction } from '../contracts/conversations';
import { NotFoundError, ValidationError } from '../errors';
import {
  conversationExport,
  type ExportConversationDeps,
  exportConversation,
  summariseSteps,
} from './export-conversation';

const NOW = new Date('2026-11-23T15:00:00Z');
const at = (min: number) => new Date(NOW.getTime() - (60 - min) * 60_000).toISOString();
let deps: ExportConversationDeps;

beforeAll(async () => {
  const t = await freshTable('export');
  const table = { doc: t.doc, tableName: t.tableName };
  deps = {
    conversations: dynamoConversationStore(table),
    actions: dynamoActionStore(table),
    runs: dynamoRunStore(table),
    audit: dynamoAuditLog(table, () => NOW),
    facts: new DynamoFactStore(table),
    clock: () => NOW,
  };
  await seed(deps);
});

const card = (id: string, runId: string, status: PendingAction['status'], min: number): PendingAction => ({
  id,
  conversationId: 'c_export',
  runId,
  tool: 'send_message',
  args: { to: '+14155550111', text: 'Hi Maria, a plumber comes tomorrow.' },
  argsHash: 'h',
  summary: 'Text Maria',
  status,
  proposedBy: 'planner',
  reason: 'reply to a maintenance request',
  review: {},
  createdAt: at(min),
  updatedAt: at(min),
  version: 1,
});

async function seed(d: ExportConversationDeps) {
  await d.conversations.create({
    id: 'c_export',
    title: 'Maria Lopez',
    source: 'sms',
    contact: { name: 'Maria Lopez', phone: '+14155550111' },
    preview: '',
    createdAt: at(0),
    updatedAt: at(0),
    lastMessageAt: at(0),
    createdBy: 'system',
    triggerKey: 'sms:+14155550111',
    pendingCount: 0,
    readBy: {},
  });
  const msg = (id: string, min: number, extra: Record<string, unknown>) =>
    d.conversations.appendMessage({
      id,
      conversationId: 'c_export',
      role: 'inbound',
      text: 'The sink is leaking',
      createdAt: at(min),
      author: { kind: 'contact', name: 'Maria Lopez' },
      ...extra,
    } as never);
  // The second message carries media as the follow-through work stores it (ids, never the provider URL).
  await msg('m1', 1, {});
  await msg('m2', 2, { media: [{ id: 'md_1', type: 'image/jpeg' }] });
  await msg('m3', 3, { role: 'assistant', runId: 'r1', author: { kind: 'assistant', name: 'Switchboard' } });
  for (const [id, min] of [
    ['r1', 2],
    ['r2', 10],
  ] as const) {
    await d.runs.create({
      id,
      conversationId: 'c_export',
      status: 'completed',
      mode: 'rules',
      trigger: { type: 'sms.received', key: 'sms:+14155550111', eventIds: [`e_${id}`] },
      iteration: 1,
      nextSeq: 0,
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        modelCalls: 0,
      },
      createdAt: at(min),
      updatedAt: at(min + 1),
      outcome: 'drafted a reply',
    });
  }
  await d.runs.appendStep('c_export', { runId: 'r1', seq: 0, kind: 'input', at: at(2), data: {} });
  await d.runs.appendStep('c_export', {
    runId: 'r1',
    seq: 1,
    kind: 'tool_result',
    at: at(3),
    data: { name: 'search_contacts', args: {}, status: 'ok' },
  });
  await d.runs.appendStep('c_export', {
    runId: 'r1',
    seq: 2,
    kind: 'error',
    at: at(3),
    data: { message: 'ClickUp unreachable' },
  });
  await d.actions.create(card('a1', 'r1', 'EXECUTED', 4));
  await d.actions.create(card('a2', 'r2', 'PENDING', 11));
  await d.audit.append({
    conversationId: 'c_export',
    type: 'approval.approved',
    actor: 'sam@oak.example',
    at: at(5),
  });
  await d.facts.put('c_export', [
    {
      predicate: 'contact',
      args: ['+14155550111', 'ct_maria', 'false'],
      establishedAt: Math.floor(NOW.getTime() / 1000) - 60,
      provenance: { kind: 'tool', detail: 'search_contacts' },
    },
  ]);
}

describe('exportConversation (DynamoDB Local)', () => {
  test('one file with messages, cards, runs and their steps, audit, facts and media references', async () => {
    const file = await exportConversation(deps, { conversationId: 'c_export', exportedBy: 'u_sam' });
    expect(conversationExport.safeParse(file).success).toBe(true);
    expect(file).toMatchObject({
      format: 'switchboard.conversation-export',
      version: 1,
      exportedAt: NOW.toISOString(),
      exportedBy: 'u_sam',
      counts: { messages: 3, cards: 2, runs: 2, audit: 1, facts: 1, media: 1 },
    });
    expect(file.messages.map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
    expect(file.cards.map((c) => [c.id, c.status])).toEqual([
      ['a1', 'EXECUTED'],
      ['a2', 'PENDING'],
    ]);
    // r2 is known only from its card: runs are found through the ids messages and cards carry.
    expect(file.runs.map((r) => r.id)).toEqual(['r1', 'r2']);
    expect(file.runs[0]?.steps).toMatchObject({
      total: 3,
      byKind: { input: 1, tool_result: 1, error: 1 },
      toolCalls: [{ name: 'search_contacts', status: 'ok' }],
      errors: ['ClickUp unreachable'],
    });
    expect(file.media).toEqual([{ messageId: 'm2', id: 'md_1', type: 'image/jpeg', at: at(2) }]);
    expect(file.facts[0]?.predicate).toBe('contact');
    // The file survives a JSON round trip unchanged (what the CLI writes and the PWA downloads).
    expect(conversationExport.parse(JSON.parse(JSON.stringify(file)))).toEqual(file);
  });

  test('an unknown conversation is a NotFoundError, a blank id a ValidationError', async () => {
    await expect(
      exportConversation(deps, { conversationId: 'c_nope', exportedBy: 'u' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(exportConversation(deps, { conversationId: '  ', exportedBy: 'u' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

test('summariseSteps orders by sequence and reads older tool_call steps too', () => {
  const s = summariseSteps([
    { runId: 'r', seq: 1, kind: 'tool_call', at: '2026-01-01T00:00:01Z', data: { name: 'send_message' } },
    { runId: 'r', seq: 0, kind: 'input', at: '2026-01-01T00:00:00Z', data: null },
  ]);
  expect(s).toEqual({
    total: 2,
    byKind: { input: 1, tool_call: 1 },
    toolCalls: [{ name: 'send_message' }],
    errors: [],
    firstAt: '2026-01-01T00:00:00Z',
    lastAt: '2026-01-01T00:00:01Z',
  });
});
