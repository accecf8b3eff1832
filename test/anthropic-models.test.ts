import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import {
  defaultSdkDir,
  GENERATED_PATH,
  parseSdkDate,
  readSdkModelData,
  renderModule,
} from '../scripts/anthropic/extract-models';
import { DEFAULT_ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_MODEL } from '../shared/src/config';
import { checkConfiguredModels, latestAlias, modelState } from '../shared/src/domain/model-lifecycle';
import { ConfigError } from '../shared/src/errors';
import { SDK_DEPRECATED_MODELS, SDK_MODELS } from '../shared/src/generated/anthropic-models';

test('the generated model file matches the installed @anthropic-ai/sdk (run `npm run models:sync`)', () => {
  const expected = renderModule(readSdkModelData(defaultSdkDir()));
  expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(expected);
});

test('the SDK’s dates are read as calendar dates', () => {
  expect(parseSdkDate('November 30th, 2026')).toBe('2026-11-30');
  expect(parseSdkDate('June 1st, 2027')).toBe('2027-06-01');
  expect(() => parseSdkDate('soon')).toThrow(/Unrecognised/);
});

test('pinned defaults are not on the SDK’s deprecation list and follow the newest-alias rule', () => {
  for (const model of [DEFAULT_ANTHROPIC_MODEL, DEFAULT_ANTHROPIC_HELPER_MODEL]) {
    expect(SDK_MODELS).toContain(model);
    expect(Object.keys(SDK_DEPRECATED_MODELS)).not.toContain(model);
  }
  expect(DEFAULT_ANTHROPIC_MODEL).toBe(latestAlias('sonnet'));
  expect(DEFAULT_ANTHROPIC_HELPER_MODEL).toBe(latestAlias('haiku'));
});

const before = new Date('2026-11-23T12:00:00Z');
const after = new Date('2026-12-01T00:00:00Z');

test('a model’s state depends on the injected clock only', () => {
  expect(modelState('claude-sonnet-4-5', before)).toEqual({
    state: 'deprecated',
    endOfLife: '2026-11-30',
    daysLeft: 7,
  });
  expect(modelState('claude-sonnet-4-5', new Date('2026-11-30T00:00:00Z')).state).toBe('retired');
  expect(modelState('claude-sonnet-4-5', after).state).toBe('retired');
  expect(modelState(DEFAULT_ANTHROPIC_MODEL, after).state).toBe('current');
  expect(modelState('claude-sonnet-9', before).state).toBe('unknown');
});

test('start-up: a retired model is a configuration error, a deprecated one a notice', () => {
  const defaults = { ANTHROPIC_MODEL: DEFAULT_ANTHROPIC_MODEL };
  expect(() => checkConfiguredModels({ ANTHROPIC_MODEL: 'claude-sonnet-4-5' }, after, defaults)).toThrow(
    ConfigError,
  );
  expect(() => checkConfiguredModels({ ANTHROPIC_MODEL: 'claude-sonnet-4-5' }, after, defaults)).toThrow(
    /ANTHROPIC_MODEL=claude-sonnet-4-5 reached end of life on 2026-11-30.*Use claude-sonnet-5-5/,
  );
  const [notice] = checkConfiguredModels({ ANTHROPIC_MODEL: 'claude-sonnet-4-5' }, before, defaults);
  expect(notice).toMatchObject({ state: 'deprecated', daysLeft: 7, endOfLife: '2026-11-30' });
  expect(notice?.message).toMatch(/reaches end of life on 2026-11-30 \(in 7 days\)/);
  const ok = checkConfiguredModels(
    { ANTHROPIC_MODEL: DEFAULT_ANTHROPIC_MODEL, ANTHROPIC_HELPER_MODEL: DEFAULT_ANTHROPIC_HELPER_MODEL },
    after,
  );
  expect(ok.map((n) => n.state)).toEqual(['current', 'current']);
});
