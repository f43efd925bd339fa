/** What the worker and its outbox listener log through (pino's logger, or a test's). */
export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
