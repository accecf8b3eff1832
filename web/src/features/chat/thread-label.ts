/**
 * What a conversation holds, for its header (follow #20): one thread per person can hold texts AND email,
 * so the label comes from the channels the thread has used, not from the channel that opened it.
 */
const ONE = { sms: 'Text messages', email: 'Email', chat: 'Team chat' } as const;
type Channel = keyof typeof ONE;

export function threadLabel(c: { source: Channel; channels?: readonly Channel[] | undefined }): string {
  const used = new Set<Channel>([c.source, ...(c.channels ?? [])]);
  const outside = (['sms', 'email'] as const).filter((ch) => used.has(ch));
  if (outside.length === 2) return 'Texts and email';
  return ONE[outside[0] ?? c.source];
}
