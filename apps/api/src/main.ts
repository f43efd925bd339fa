// The API server's entry point. Tracing starts first, when the OTEL_* variables ask for it, and the server
// (serve.ts) is loaded after it, so the SDK's tracer provider and propagators are in place before the first
// request; a separate file in the bundle too (scripts/build.mjs).
import { startTracingIfAsked } from "./tracing/preload";

await startTracingIfAsked("credential-platform-api");
await import("./serve");
