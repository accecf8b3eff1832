import { describe, expect, it } from 'vitest';
import { parseSensitiveMarkers, sensitiveFindings, valuesInSensitiveFile } from './sensitive-content';

describe('sensitive content', () => {
  it('reads markers for files and values, ignoring prose', () => {
    expect(
      parseSensitiveMarkers(
        '# Sensitive\nWhat never goes by text.\n- file: areas/keys.md\n- value: 4821\n- Gate 2580#\n',
      ),
    ).toEqual({
      files: ['areas/keys.md'],
      values: ['4821', 'Gate 2580#'],
    });
  });

  it('takes digit runs and key: value pairs from a marked file', () => {
    expect(valuesInSensitiveFile('Lockbox: 4821\nalarm 99 120')).toEqual(
      expect.arrayContaining(['4821', '99120']),
    );
  });

  it.each([
    ['The plumber comes at 3 pm.', 0],
    ['Call Bob at +1 415 555 0121.', 0],
    ['Maria is at 12 Oak St #2.', 0],
    ['The door code is 1234#', 1],
    ['Her password is hunter22', 1],
    ['Key: sk-ant-api03-abcdefghijklmnop', 1],
    ['Account 1234 5678 9012 3456', 1],
  ])('%s → %i finding kinds (nothing marked)', (text, n) => {
    expect(sensitiveFindings(text, []).length > 0).toBe(n > 0);
  });

  it('finds marked values with spacing changed', () => {
    expect(sensitiveFindings('opens with 48 21', ['4821'])).toEqual(['a value the team marked sensitive']);
  });
});
