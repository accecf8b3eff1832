import { describe, expect, test } from 'vitest';
import { buildGoogleToolDeps, lazyPort } from './tool-deps';

interface Greeter {
  greet(name: string): Promise<string>;
}

describe('lazyPort (an adapter built on its first call)', () => {
  test('builds the adapter once, on the first call, and answers through it', async () => {
    let builds = 0;
    const port = lazyPort<Greeter>(async () => {
      builds++;
      return { greet: async (n) => `hi ${n}` };
    });
    expect(builds).toBe(0);
    expect(await Promise.all([port.greet('a'), port.greet('b')])).toEqual(['hi a', 'hi b']);
    expect(builds).toBe(1);
  });

  test('a failed build is not kept: the next call builds again', async () => {
    let builds = 0;
    const port = lazyPort<Greeter>(async () => {
      if (++builds === 1) throw new Error('module failed to load');
      return { greet: async (n) => `hi ${n}` };
    });
    await expect(port.greet('a')).rejects.toThrow('module failed to load');
    expect(await port.greet('a')).toBe('hi a');
  });

  test('is not a thenable, and a name the adapter lacks is a clear error', async () => {
    const port = lazyPort<Greeter>(async () => ({ greet: async (n) => n }));
    expect(await Promise.resolve(port)).toBe(port);
    await expect((port as unknown as { nope(): Promise<void> }).nope()).rejects.toThrow(
      'nope is not a method of this port',
    );
  });
});

test('Google tools are not built without a service account and an inbox to act as', () => {
  const base = {
    TEAM_TIMEZONE: 'America/New_York',
    TEAM_NAME: 'Oak',
    EMAIL_BODY_LIMIT: 20_000,
  } as Parameters<typeof buildGoogleToolDeps>[0];
  expect(buildGoogleToolDeps(base)).toBeUndefined();
  expect(buildGoogleToolDeps({ ...base, GOOGLE_SERVICE_ACCOUNT_JSON: '{}' })).toBeUndefined();
});
