import type { DestinationStream } from "pino";
import type { PrettyOptions } from "pino-pretty";

export type LogFormat = "json" | "pretty";

/**
 * How log lines are written: LOG_FORMAT when set; otherwise human-readable ("pretty") when standard output
 * is a terminal in development mode (someone is watching `pnpm dev` / `pnpm start`), and JSON, one object
 * a line, everywhere else (what a log store reads; unchanged).
 */
export function chooseLogFormat(input: {
  requested: LogFormat | undefined;
  developmentMode: boolean;
  stdoutIsTerminal: boolean;
}): LogFormat {
  if (input.requested) return input.requested;
  return input.developmentMode && input.stdoutIsTerminal ? "pretty" : "json";
}

/** The access line's fields (http/ops.ts), shown in its message instead; and the ids nobody reads there. */
const ACCESS_LINE_FIELDS = ["method", "route", "status", "ms"];

/** A log line's message; the access line (http/ops.ts) as `POST /issuers/:issuerId/token 400 12 ms`. */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const message = String(log[messageKey] ?? "");
  if (message !== "request" || typeof log.method !== "string") return message;
  const failed = typeof log.status === "number" && log.status >= 400;
  return `${log.method} ${log.route ?? "(no route)"} ${log.status}${failed ? " !" : ""} ${log.ms} ms`;
}

/** pino-pretty's options: one short line per entry, without pid, hostname, request id or the access fields. */
export function prettyOptions(colorize: boolean): PrettyOptions {
  return {
    colorize,
    singleLine: true,
    sync: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: ["pid", "hostname", "requestId", ...ACCESS_LINE_FIELDS].join(","),
    messageFormat: prettyMessage,
  };
}

/** pino-pretty as a stream in this thread (no transport worker), loaded only when chosen. */
export async function prettyLogStream(): Promise<DestinationStream> {
  const { default: pretty } = await import("pino-pretty");
  return pretty(prettyOptions(true));
}

/** Requests polled by probes and scrapers, which pretty logs leave out (JSON logs keep every line). */
export const QUIET_ROUTES: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/** The console's tRPC calls (apps/api/src/console/mount-console.ts): GET for reads, POST for changes. */
const CONSOLE_TRPC_ROUTE = "/trpc/*";

/**
 * Whether pretty logs leave a request's line out: probes and scrapes, and the console's successful reads.
 * An open console page re-reads its list every few seconds; a line for each would scroll the start banner
 * (console URL, login, API key) out of sight within a minute of doing nothing. The console's changes and
 * failures, and every REST and wallet call, keep their line; JSON logs keep every line.
 */
export function quietInPrettyLog(request: {
  method: string;
  route: string | undefined;
  status: number;
}): boolean {
  if (QUIET_ROUTES.has(request.route ?? "")) return true;
  return request.route === CONSOLE_TRPC_ROUTE && request.method === "GET" && request.status < 400;
}
