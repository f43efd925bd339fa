/**
 * Tells this process's webhook worker that an outbox event is being written, so that after idling it
 * looks for work within tens of milliseconds instead of its poll interval. The signal comes as the
 * statement is built, before its transaction commits: the worker answers by polling quickly for a short
 * while (webhook-worker.ts), not by one immediate look. Other processes' workers still poll.
 */
const listeners = new Set<() => void>();

export function onOutboxWrite(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signalOutboxWrite(): void {
  for (const listener of listeners) listener();
}
