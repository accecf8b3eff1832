/**
 * The `Authentication-Results` header Gmail's receiving servers (authserv-id `mx.google.com`) prepend to
 * mail they accept, in the shape documented in test/contracts/vendor/google/gmail-authentication-results.md
 * (RFC 8601 syntax; Gmail's SPF/DKIM/DMARC order and comments). The emulator stamps it on mail that "arrives"
 * (`state.deliverEmail`); `users.messages.insert` stores a message exactly as given, as Gmail does, so
 * `simulate:email` writes the header itself, as Gmail's MX would have.
 */
export type DmarcOutcome = 'pass' | 'fail' | 'none';

export function gmailAuthenticationResults(fromAddress: string, dmarc: DmarcOutcome): string {
  const domain = (fromAddress.split('@')[1] ?? '').toLowerCase();
  if (dmarc === 'pass') {
    return `mx.google.com; dkim=pass header.i=@${domain} header.s=20230601 header.b=Zm9vYmFy; spf=pass (google.com: domain of ${fromAddress} designates 192.0.2.10 as permitted sender) smtp.mailfrom=${fromAddress}; dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=${domain}`;
  }
  if (dmarc === 'fail') {
    // A forged From: the sending server is not the domain's, and nothing is signed by it.
    return `mx.google.com; spf=fail (google.com: domain of ${fromAddress} does not designate 203.0.113.66 as permitted sender) smtp.mailfrom=${fromAddress}; dmarc=fail (p=REJECT sp=REJECT dis=QUARANTINE) header.from=${domain}`;
  }
  return `mx.google.com; spf=none (google.com: ${fromAddress} does not designate permitted sender hosts) smtp.mailfrom=${fromAddress}; dmarc=none header.from=${domain}`;
}
