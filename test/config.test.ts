import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { configSchema, loadConfig, parseConfig } from '../shared/src/config';
import { ConfigError } from '../shared/src/errors';

const minimal = { TABLE_NAME: 't', EVENTS_QUEUE_URL: 'http://localhost:1/q' };

test('.env.example documents every configuration variable', () => {
  const example = readFileSync('.env.example', 'utf8');
  const documented = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
  const missing = Object.keys(configSchema.shape).filter((k) => !documented.has(k));
  expect(missing).toEqual([]);
});

test('a missing or malformed value stops start-up with a message naming it', () => {
  expect(() => parseConfig({})).toThrow(ConfigError);
  expect(() => parseConfig({})).toThrow(/TABLE_NAME/);
  expect(() => parseConfig({ ...minimal, EVENTS_QUEUE_URL: 'not a url' })).toThrow(/EVENTS_QUEUE_URL/);
  expect(() => parseConfig({ ...minimal, COOLDOWN_SECONDS: '-3' })).toThrow(/COOLDOWN_SECONDS/);
  expect(() => parseConfig({ ...minimal, LOG_LEVEL: 'LOUD' })).toThrow(/LOG_LEVEL/);
});

test('defaults fill the rest; lists are comma-separated', () => {
  const c = parseConfig({ ...minimal, ALLOWED_EMAIL_DOMAINS: 'a.example, b.example' });
  expect(c.COOLDOWN_SECONDS).toBe(120);
  expect(c.ALLOWED_EMAIL_DOMAINS).toEqual(['a.example', 'b.example']);
  expect(c.ESCALATION_REQUIRES_APPROVAL).toBe(false);
});

test('on AWS the secret JSON is merged over the environment, and a bad secret is a clear error', async () => {
  const c = await loadConfig({ ...minimal, SECRETS_ARN: 'arn:x' }, async () =>
    JSON.stringify({ OPENPHONE_API_KEY: 'k' }),
  );
  expect(c.OPENPHONE_API_KEY).toBe('k');
  await expect(loadConfig({ ...minimal, SECRETS_ARN: 'arn:x' }, async () => 'nope')).rejects.toThrow(
    /SECRETS_ARN/,
  );
});
