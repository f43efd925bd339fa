// `pnpm worker`: the webhook delivery worker as a process of its own (worker-serve.ts). Tracing starts
// first, when the OTEL_* variables ask for it, as in main.ts.
import { startTracingIfAsked } from "./tracing/preload";

await startTracingIfAsked("credential-platform-worker");
await import("./worker-serve");
