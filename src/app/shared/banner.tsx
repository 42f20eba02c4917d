/** What the view last did or why it failed, read out by screen readers (role=status). */
export type Message = { text: string; bad: boolean } | null;

export function Banner({ message }: { message: Message }) {
  return (
    <p role="status" class={message ? `banner ${message.bad ? 'bad' : 'good'}` : 'visually-hidden'}>
      {message?.text ?? ''}
    </p>
  );
}
