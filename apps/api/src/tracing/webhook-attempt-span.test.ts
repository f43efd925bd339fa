// A webhook attempt's trace: sampled, a `webhook attempt` span whose scope the attempt gets (its POST's
// traceparent comes from it); dropped by the sampler, nothing, as if tracing were off.
import type { AppDeps, ClaimedDelivery } from "@cred/core";
import { propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { tracing } from "@opentelemetry/sdk-node";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { fakeRootUnit } from "./fake-unit-of-work";
import { traceAttempt } from "./webhook-attempt-span";

let decision = tracing.SamplingDecision.RECORD_AND_SAMPLED;
const exporter = new tracing.InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new tracing.BasicTracerProvider({
    sampler: { shouldSample: () => ({ decision }), toString: () => "switch" },
    spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  }),
);

propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const delivery = {
  id: "whd_1",
  subscriptionId: "whs_1",
  eventType: "credential.issued",
  attempts: 2,
} as ClaimedDelivery;

const root = fakeRootUnit();

beforeEach(() => exporter.reset());
afterAll(() => {
  trace.disable();
  propagation.disable();
});

describe("a webhook attempt's span", () => {
  it("when sampled, has the delivery's attributes and result; the attempt gets its scope", async () => {
    decision = tracing.SamplingDecision.RECORD_AND_SAMPLED;
    let headers: Record<string, string> = {};
    const result = await traceAttempt(delivery, async (scope) => {
      expect(scope?.recording).toBe(true);
      const deps = scope!.depsOf({ database: { root } } as Pick<AppDeps, "database" | "outboundTrace">);
      await deps.outboundTrace!("POST", new URL("https://receiver.example/hook"), async (given) => {
        headers = given;
        return {};
      });
      return "delivered";
    });
    expect(result).toBe("delivered");
    const spans = exporter.getFinishedSpans();
    const attempt = spans.find((span) => span.name === "webhook attempt");
    expect(attempt?.attributes).toMatchObject({
      "webhook.delivery_id": "whd_1",
      "webhook.subscription_id": "whs_1",
      "webhook.event_type": "credential.issued",
      "webhook.attempt": 3,
      "webhook.result": "delivered",
    });
    const post = spans.find((span) => span.name === "POST");
    expect(post?.parentSpanContext?.spanId).toBe(attempt?.spanContext().spanId);
    expect(headers.traceparent).toBe(`00-${post?.spanContext().traceId}-${post?.spanContext().spanId}-01`);
  });

  it("is nothing when the sampler drops it: no scope, no span", async () => {
    decision = tracing.SamplingDecision.NOT_RECORD;
    const result = await traceAttempt(delivery, async (scope) => {
      expect(scope).toBeUndefined();
      return "delivered";
    });
    expect(result).toBe("delivered");
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
