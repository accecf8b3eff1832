import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { buildMessageReceived, signDelivery } from '../../scripts/simulate-sms';
import { dynamoPageStatusStore } from '../../shared/src/adapters/dynamo/page-status-store';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { createTwilioPager } from '../../shared/src/adapters/twilio-pager';
import { getCore } from '../../shared/src/composition/core';
import type { LedgerEntry } from '../../shared/src/ports/event-ledger';
import { until } from './fixtures';

/**
 * Inbound deliveries against the whole local stack (`startLocalStack`: gateway → webhook function → fauxqs →
 * SQS poller → worker → DynamoDB Local, with every vendor emulator): 200 concurrent texts all accounted for in
 * the event ledger, Twilio status callbacks signed by the Twilio emulator (with the twilio package's helper)
 * recorded or refused, and `npm run simulate:sms` as a user runs it.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    env: { COOLDOWN_SECONDS: '2', LOG_LEVEL: 'ERROR' },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const FINAL = new Set(['processed', 'coalesced']);

async function postDelivery(from: string, text: string, scheme: 'legacy' | 'standard') {
  const d = buildMessageReceived({ from, to: '+14155550100', text, scheme });
  const headers = signDelivery({
    rawBody: d.rawBody,
    secret: stack.env.OPENPHONE_WEBHOOK_SECRET ?? '',
    scheme,
  });
  const res = await fetch(`${stack.url}/webhooks/openphone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: d.rawBody,
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    eventId: `sms_${d.eventId}`,
  };
}

describe('200 concurrent deliveries through the local stack', () => {
  it('every delivery is accepted and ends processed (or coalesced) in the event ledger; none lost', async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postDelivery(
          `+1628555${String(1000 + i)}`,
          `Question ${i}: is the laundry room open on Sundays?`,
          i % 2 ? 'legacy' : 'standard',
        ),
      ),
    );
    const acceptMs = Date.now() - started;
    expect(answers.filter((a) => a.status !== 202)).toEqual([]);
    const ids = answers.map((a) => String(a.body.eventId));
    expect(new Set(ids).size).toBe(200);
    expect(ids.sort()).toEqual(answers.map((a) => a.eventId).sort());

    const core = await getCore('test-inbound');
    const entries = await until(
      async () => {
        const all = await Promise.all(ids.map((id) => core.ledger.get(id)));
        return all.every((e) => e && FINAL.has(e.status)) ? (all as LedgerEntry[]) : undefined;
      },
      150_000,
      500,
    );
    expect(entries.map((e) => e.type)).toEqual(ids.map(() => 'sms.received'));
    // Distinct senders never share a cooldown key, so each text had its own run.
    expect(entries.filter((e) => e.status !== 'processed')).toEqual([]);
    // Also listed in the day's ledger, where an operator accounts for deliveries.
    const days = [...new Set(entries.map((e) => e.at.slice(0, 10)))];
    const listed = new Set(
      (await Promise.all(days.map((d) => core.ledger.listDay(d)))).flat().map((e) => e.eventId),
    );
    expect(ids.filter((id) => !listed.has(id))).toEqual([]);

    // Nothing was dead-lettered along the way.
    const sqs = makeSqsClient({ region: 'us-east-1', endpoint: stack.env.SQS_ENDPOINT });
    const dead = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: stack.env.DLQ_URL, WaitTimeSeconds: 0 }),
    );
    sqs.destroy();
    expect(dead.Messages ?? []).toEqual([]);
    console.info(
      `200 deliveries: accepted in ${acceptMs} ms, all processed after ${Date.now() - started} ms`,
    );
  }, 180_000);
});

describe('POST /webhooks/twilio/status through the local stack', () => {
  const statusUrl = () => `${stack.url}/webhooks/twilio/status`;
  const pages = async () => dynamoPageStatusStore((await getCore('test-inbound')).table);

  /** Pages the on-call phone through the Twilio emulator with the real pager, so callbacks have real sids. */
  async function page() {
    const pager = createTwilioPager({
      accountSid: stack.env.TWILIO_ACCOUNT_SID ?? '',
      authToken: stack.env.TWILIO_AUTH_TOKEN ?? '',
      fromNumber: stack.env.TWILIO_FROM_NUMBER ?? '',
      apiBase: stack.env.TWILIO_API_BASE ?? '',
      statusCallbackUrl: statusUrl(),
    });
    const result = await pager.page({ to: '+14155550103', text: 'URGENT test page: flooding at 12 Oak St' });
    if (!result.sms?.ok || !result.voice?.ok) throw new Error(`page failed: ${JSON.stringify(result)}`);
    return { smsSid: result.sms.sid, callSid: result.voice.sid };
  }

  it('callbacks signed by Twilio (the emulator signs with the twilio package) are recorded', async () => {
    const tw = stack.emulators!.twilio;
    const { smsSid, callSid } = await page();
    const sent = await tw.sendStatusCallback(smsSid, 'sent');
    const delivered = await tw.sendStatusCallback(smsSid, 'delivered');
    const ringing = await tw.sendStatusCallback(callSid, 'ringing');
    const completed = await tw.sendStatusCallback(callSid, 'completed');
    for (const d of [sent, delivered, ringing, completed]) {
      expect(d?.status, d?.responseText).toBe(200);
      expect(d?.url).toBe(statusUrl());
    }
    const store = await pages();
    expect((await store.get(smsSid)).map((s) => s.status).sort()).toEqual(['delivered', 'sent']);
    const call = await store.get(callSid);
    expect(call.map((s) => [s.status, s.sequence])).toEqual([
      ['ringing', 0],
      ['completed', 1],
    ]);
    expect(call.at(-1)?.durationSeconds).toBe(12);
  });

  it('a callback with a bad, missing or misplaced signature → 401 and nothing recorded', async () => {
    const { smsSid } = await page();
    const params = {
      AccountSid: stack.env.TWILIO_ACCOUNT_SID ?? '',
      ApiVersion: '2010-04-01',
      From: stack.env.TWILIO_FROM_NUMBER ?? '',
      MessageSid: smsSid,
      MessageStatus: 'delivered',
      SmsSid: smsSid,
      SmsStatus: 'delivered',
      To: '+14155550103',
    };
    const token = stack.env.TWILIO_AUTH_TOKEN ?? '';
    const post = (body: Record<string, string>, signature?: string) =>
      fetch(statusUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(signature === undefined ? {} : { 'x-twilio-signature': signature }),
        },
        body: new URLSearchParams(body).toString(),
      });
    const sign = (authToken: string, url: string, body: Record<string, string>) =>
      twilio.getExpectedTwilioSignature(authToken, url, body);

    const attempts = [
      ['another auth token', post(params, sign('0'.repeat(32), statusUrl(), params))],
      ['no signature', post(params)],
      ['signed for another URL', post(params, sign(token, `${statusUrl()}?x=1`, params))],
      [
        'status changed after signing',
        post({ ...params, MessageStatus: 'failed' }, sign(token, statusUrl(), params)),
      ],
      ['garbage signature', post(params, 'not-a-signature')],
    ] as const;
    for (const [name, pending] of attempts) {
      const res = await pending;
      expect(res.status, name).toBe(401);
      expect(await res.json(), name).toMatchObject({ error: { code: 'unauthorized' } });
    }
    expect(await (await pages()).get(smsSid)).toEqual([]);

    // The same parameters, correctly signed, are accepted: the refusals above were about the signature.
    const ok = await post(params, sign(token, statusUrl(), params));
    expect(ok.status).toBe(200);
    expect((await (await pages()).get(smsSid)).map((s) => s.status)).toEqual(['delivered']);
  });

  it('a correctly signed callback whose parameters are malformed → 400 with the field', async () => {
    const params = {
      AccountSid: stack.env.TWILIO_ACCOUNT_SID ?? '',
      MessageSid: 'SMnot-a-sid',
      MessageStatus: 'delivered',
      To: '+14155550103',
      From: stack.env.TWILIO_FROM_NUMBER ?? '',
    };
    const res = await fetch(statusUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(
          stack.env.TWILIO_AUTH_TOKEN ?? '',
          statusUrl(),
          params,
        ),
      },
      body: new URLSearchParams(params).toString(),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/MessageSid/);
  });
});

describe('npm run simulate:sms against the running stack', () => {
  const exec = promisify(execFile);
  let dir: string;
  let runtimePath: string;
  beforeAll(() => {
    // What `npm start` writes to .local/runtime.json, for this test's stack.
    dir = mkdtempSync(join(tmpdir(), 'simulate-sms-'));
    runtimePath = join(dir, 'runtime.json');
    writeFileSync(
      runtimePath,
      JSON.stringify({
        url: stack.url,
        openPhoneWebhookSecret: stack.env.OPENPHONE_WEBHOOK_SECRET,
        sharedNumber: stack.env.OPENPHONE_SHARED_NUMBER,
        env: stack.env,
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const simulate = (...args: string[]) =>
    exec(
      join('node_modules', '.bin', 'tsx'),
      ['scripts/simulate-sms.ts', '--runtime', runtimePath, ...args],
      {
        timeout: 60_000,
      },
    );

  it.each(['standard', 'legacy'] as const)(
    'a %s-signed text is accepted, reaches the worker and becomes a conversation',
    async (scheme) => {
      const from = scheme === 'legacy' ? '(628) 555-0990' : '+16285550991';
      const { stdout } = await simulate(
        '--from',
        from,
        '--scheme',
        scheme,
        'Is parking included with unit 4?',
      );
      expect(stdout).toMatch(/→ HTTP 202/);
      const eventId = /"eventId": "([^"]+)"/.exec(stdout)?.[1];
      expect(eventId).toMatch(/^sms_EV[0-9a-f]{32}$/);
      const core = await getCore('test-inbound');
      const entry = await until(async () => {
        const e = await core.ledger.get(eventId ?? '');
        return e && FINAL.has(e.status) ? e : undefined;
      }, 60_000);
      const key = `sms:${from.startsWith('(') ? '+16285550990' : from}`;
      expect(entry).toMatchObject({ type: 'sms.received', key });
      // Issue 13's "done when": each generation's delivery becomes a conversation holding the text.
      const conversation = await until(() => core.conversations.findByTriggerKey(key));
      const messages = await core.conversations.listMessages(conversation.id);
      expect(messages.map((m) => m.text)).toContain('Is parking included with unit 4?');
    },
    90_000,
  );

  it('bad usage exits non-zero with the reason', async () => {
    await expect(simulate('--from', 'not-a-number', 'hello')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--from must be a phone number/),
    });
    await expect(simulate('--from', '+16285550992')).rejects.toMatchObject({
      stderr: expect.stringMatching(/message text is required/),
    });
  }, 90_000);
});
