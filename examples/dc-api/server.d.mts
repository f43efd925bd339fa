/** Types of server.mjs (the example backend), for the Playwright test that runs it. */
export function startExampleServer(options?: {
  platformUrl?: string;
  apiKey?: string;
  policy?: string;
  origin?: string;
  port?: number;
  host?: string;
}): Promise<{ url: string; close: () => Promise<void> }>;
