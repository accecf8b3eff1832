import { describe, expect, it } from 'vitest';
import { dmarcVerdict, isTeamMail } from './email-auth';

const GMAIL_PASS =
  'mx.google.com; dkim=pass header.i=@oak.example header.s=20230601 header.b=abc; spf=pass (google.com: domain of alex@oak.example designates 192.0.2.10 as permitted sender) smtp.mailfrom=alex@oak.example; dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=oak.example';
const GMAIL_FAIL =
  'mx.google.com; spf=fail (google.com: domain of alex@oak.example does not designate 203.0.113.66 as permitted sender) smtp.mailfrom=alex@oak.example; dmarc=fail (p=REJECT sp=REJECT dis=QUARANTINE) header.from=oak.example';

describe('Gmail DMARC verdict (RFC 8601 Authentication-Results)', () => {
  it("reads the top-most header when Gmail's receiving server wrote it", () => {
    expect(dmarcVerdict([GMAIL_PASS])).toEqual({ result: 'pass', headerFrom: 'oak.example' });
    expect(dmarcVerdict([GMAIL_FAIL])).toEqual({ result: 'fail', headerFrom: 'oak.example' });
  });

  it("ignores a pass the sender wrote below Gmail's own header, and any other authserv-id", () => {
    expect(dmarcVerdict([GMAIL_FAIL, GMAIL_PASS])?.result).toBe('fail');
    expect(dmarcVerdict(['mx.evil.example; dmarc=pass header.from=oak.example'])).toBeUndefined();
    expect(dmarcVerdict([])).toBeUndefined();
  });

  it('team mail needs the From domain on the team list and a pass for exactly that domain', () => {
    const pass = dmarcVerdict([GMAIL_PASS]);
    expect(isTeamMail('Alex <alex@oak.example>', pass, ['oak.example'])).toBe(true);
    expect(isTeamMail('alex@oak.example', dmarcVerdict([GMAIL_FAIL]), ['oak.example'])).toBe(false);
    expect(isTeamMail('alex@oak.example', undefined, ['oak.example'])).toBe(false);
    expect(
      isTeamMail('alex@oak.example', { result: 'pass', headerFrom: 'evil.example' }, ['oak.example']),
    ).toBe(false);
    expect(
      isTeamMail('maria@mail.example', { result: 'pass', headerFrom: 'mail.example' }, ['oak.example']),
    ).toBe(false);
  });
});
